// ConcatV2(values..., axis), the legacy Concat(concat_dim, values...) and
// Pack(values...; axis): join tensors along an existing axis or a new one. Both
// view every input as [outer, inner_i] and copy row by row. Errors
// (InvalidArgument naming the node): axis out of range, scalars to ConcatV2,
// mismatched ranks or dims.
#include <algorithm>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// out[o, :] = concat_i(inputs[i][o, :]) with row lengths inner[i].
void ConcatRows(OpKernelContext* ctx, const std::vector<const Tensor*>& inputs,
                const std::vector<int64_t>& inner, int64_t outer, Tensor* out) {
  const bool ok = DispatchByElementSize(out->dtype(), [&](auto tag) {
    using U = decltype(tag);
    U* o = out->base<U>();
    for (int64_t r = 0; r < outer; ++r) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const int64_t n = inner[i];
        const U* src = inputs[i]->base<U>() + r * n;
        o = std::copy(src, src + n, o);
      }
    }
  });
  OP_REQUIRES(ctx, ok,
              NodeInvalidArgument(ctx, ctx->op_kernel().type_string(),
                                  " does not support dtype ",
                                  DataTypeString(out->dtype())));
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx), axis_first_(type_string() == "Concat") {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const int base = axis_first_ ? 1 : 0;
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "Concat dim tensor should be a scalar "
                                    "integer, but got shape ",
                                    axis_t.shape().DebugString()));
    std::vector<int64_t> axis_v;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axis_t, &axis_v));
    const Tensor& first = ctx->input(base);
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0,
                NodeInvalidArgument(ctx,
                                    "ConcatOp : Can't concatenate scalars "
                                    "(use tf.stack instead)"));
    int64_t axis = 0;
    OP_REQUIRES(
        ctx, NormalizeAxis(axis_v[0], rank, &axis),
        NodeInvalidArgument(ctx,
                            "ConcatOp : Expected concatenating "
                            "dimensions in the range [",
                            -rank, ", ", rank, "), but got ", axis_v[0]));
    std::vector<const Tensor*> inputs;
    std::vector<int64_t> inner;
    TensorShape shape = first.shape();
    int64_t axis_total = 0;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(base + i);
      OP_REQUIRES(
          ctx, t.dims() == rank,
          NodeInvalidArgument(ctx,
                              "ConcatOp : Ranks of all input "
                              "tensors should match: shape[0] = ",
                              first.shape().DebugString(), " vs. shape[", i,
                              "] = ", t.shape().DebugString()));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        OP_REQUIRES(
            ctx, t.dim_size(d) == first.dim_size(d),
            NodeInvalidArgument(ctx, "ConcatOp : Dimension ", d,
                                " in both shapes must be equal: "
                                "shape[0] = ",
                                first.shape().DebugString(), " vs. shape[", i,
                                "] = ", t.shape().DebugString()));
      }
      axis_total += t.dim_size(static_cast<int>(axis));
      inputs.push_back(&t);
      inner.push_back(outer == 0 ? 0 : t.NumElements() / outer);
    }
    shape.set_dim(static_cast<int>(axis), axis_total);
    if (n == 1) {
      ctx->set_output(0, first);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    ConcatRows(ctx, inputs, inner, outer, out);
  }

 private:
  const bool axis_first_;  // Concat: the axis is input 0.
};

REGISTER_KERNEL_BUILDER(
    Name("ConcatV2").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    ConcatV2Op);
REGISTER_KERNEL_BUILDER(
    Name("Concat").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    ConcatV2Op);

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("axis")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    const int out_rank = first.dims() + 1;
    int64_t axis = 0;
    OP_REQUIRES(ctx, NormalizeAxis(axis_, out_rank, &axis),
                NodeInvalidArgument(ctx, "axis = ", axis_, " not in [",
                                    -out_rank, ", ", out_rank, ")"));
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(
          ctx, t.shape() == first.shape(),
          NodeInvalidArgument(ctx,
                              "Shapes of all inputs must match: "
                              "values[0].shape = ",
                              first.shape().DebugString(), " != values[", i,
                              "].shape = ", t.shape().DebugString()));
      inputs.push_back(&t);
    }
    TensorShape shape = first.shape();
    shape.InsertDim(static_cast<int>(axis), n);
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    const int64_t row = outer == 0 ? 0 : first.NumElements() / outer;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    ConcatRows(ctx, inputs, std::vector<int64_t>(n, row), outer, out);
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PackOp);

}  // namespace
}  // namespace stepflow
