// Shape, ShapeN, Rank, Size (shape queries) and Reshape, ExpandDims,
// Squeeze (metadata-only reshapes: the output shares the input's buffer).
// All cheap.
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Writes `values` into a new 1-D (or scalar when `scalar`) output `index`
// of the kernel's output dtype (int32 or int64); InvalidArgument if a value
// does not fit in int32.
void WriteIndexOutput(OpKernelContext* ctx, const std::vector<int64_t>& values,
                      bool scalar, const char* what, int index = 0) {
  const DataType dtype = ctx->expected_output_dtype(index);
  TensorShape shape;
  if (!scalar) shape.AddDim(static_cast<int64_t>(values.size()));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(index, shape, &out));
  if (dtype == DT_INT64) {
    for (size_t i = 0; i < values.size(); ++i)
      out->base<int64_t>()[i] = values[i];
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    OP_REQUIRES(ctx, values[i] <= std::numeric_limits<int32_t>::max(),
                NodeInvalidArgument(ctx, what, " output type is 32-bit but ",
                                    what, " value ", values[i],
                                    " does not fit; use out_type int64"));
    out->base<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
}

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& s = ctx->input(0).shape();
    std::vector<int64_t> dims(s.dim_sizes().begin(), s.dim_sizes().end());
    WriteIndexOutput(ctx, dims, /*scalar=*/false, "Shape");
  }
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    WriteIndexOutput(ctx, {ctx->input(0).NumElements()}, /*scalar=*/true,
                     "Size");
  }
  bool IsExpensive() const override { return false; }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    WriteIndexOutput(ctx, {ctx->input(0).dims()}, /*scalar=*/true, "Rank");
  }
  bool IsExpensive() const override { return false; }
};

class ShapeNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& s = ctx->input(i).shape();
      std::vector<int64_t> dims(s.dim_sizes().begin(), s.dim_sizes().end());
      WriteIndexOutput(ctx, dims, /*scalar=*/false, "ShapeN", i);
      if (!ctx->status().ok()) return;
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("ShapeN").Device(DEVICE_CPU), ShapeNOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CPU), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU), RankOp);

// Sets output 0 to `input` viewed with `shape` (same element count).
void ForwardReshaped(OpKernelContext* ctx, const Tensor& input,
                     const TensorShape& shape) {
  Tensor out;
  OP_REQUIRES(
      ctx, out.CopyFrom(input, shape),
      NodeInternal(ctx, "could not reshape ", input.shape().DebugString(),
                   " to ", shape.DebugString()));
  ctx->set_output(0, out);
}

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1,
                NodeInvalidArgument(ctx, "sizes input must be 1-D, not ",
                                    sizes.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, sizes, &dims));
    // As TensorFlow: zero sizes are left out of `product`, so with an empty
    // input the -1 is inferred from the input's non-zero dims ([0, 3] to
    // [0, -1] is [0, 3]; [0] to [0, -1] is [0, 1]).
    int unknown = -1;
    int64_t product = 1;
    bool sizes_have_zero = false;
    for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
      const int64_t d = dims[i];
      if (d == -1) {
        OP_REQUIRES(ctx, unknown == -1,
                    NodeInvalidArgument(ctx,
                                        "Only one input size may be -1, "
                                        "not both ",
                                        unknown, " and ", i));
        unknown = i;
        continue;
      }
      OP_REQUIRES(ctx, d >= 0,
                  NodeInvalidArgument(ctx, "Size ", i,
                                      " must be non-negative, not ", d));
      if (d == 0) {
        sizes_have_zero = true;
        continue;
      }
      OP_REQUIRES(ctx, product <= std::numeric_limits<int64_t>::max() / d,
                  NodeInvalidArgument(ctx,
                                      "Requested shape has too many "
                                      "elements (overflow)"));
      product *= d;
    }
    const int64_t n = input.NumElements();
    if (unknown >= 0) {
      // The input's element count, leaving out its zero dims when the
      // requested sizes have one.
      int64_t known = 1;
      bool input_has_zero = false;
      for (int i = 0; i < input.dims(); ++i) {
        if (input.dim_size(i) > 0 || !sizes_have_zero) {
          known *= input.dim_size(i);
        } else {
          input_has_zero = true;
        }
      }
      const int64_t missing = known / product;
      OP_REQUIRES(
          ctx, input_has_zero || product * missing == known,
          NodeInvalidArgument(ctx, "Input to reshape is a tensor with ", known,
                              " values, but the requested shape "
                              "requires a multiple of ",
                              product));
      dims[unknown] = missing;
    }
    const int64_t requested =
        sizes_have_zero ? 0 : product * (unknown >= 0 ? dims[unknown] : 1);
    OP_REQUIRES(ctx, n == requested,
                NodeInvalidArgument(ctx, "Input to reshape is a tensor with ",
                                    n, " values, but the requested shape has ",
                                    requested));
    ForwardReshaped(ctx, input, TensorShape(absl::MakeConstSpan(dims)));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU), ReshapeOp);

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                NodeInvalidArgument(ctx,
                                    "'dim' must be a tensor with a single "
                                    "value, got shape ",
                                    dim_t.shape().DebugString()));
    std::vector<int64_t> v;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, dim_t, &v));
    const int rank = input.dims();
    int64_t dim = v[0];
    OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                NodeInvalidArgument(ctx, "Tried to expand dim index ", dim,
                                    " for tensor with ", rank, " dimensions."));
    if (dim < 0) dim += rank + 1;
    TensorShape shape = input.shape();
    shape.InsertDim(static_cast<int>(dim), 1);
    ForwardReshaped(ctx, input, shape);
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> dims;
    if (ctx->HasAttr("squeeze_dims")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &dims));
    }
    squeeze_dims_ = dims;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    std::vector<bool> wanted(rank, false);
    for (int64_t d : squeeze_dims_) {
      int64_t a = 0;
      OP_REQUIRES(
          ctx, NormalizeAxis(d, rank, &a),
          NodeInvalidArgument(ctx, "Tried to squeeze dim index ", d,
                              " for tensor with ", rank, " dimensions."));
      wanted[a] = true;
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t size = input.dim_size(i);
      if (squeeze_dims_.empty()) {
        if (size != 1) shape.AddDim(size);
        continue;
      }
      if (wanted[i]) {
        OP_REQUIRES(
            ctx, size == 1,
            NodeInvalidArgument(ctx, "Can not squeeze dim[", i,
                                "], expected a dimension of 1, got ", size));
      } else {
        shape.AddDim(size);
      }
    }
    ForwardReshaped(ctx, input, shape);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace
}  // namespace stepflow
