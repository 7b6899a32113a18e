// GatherNd(params, indices; bad_indices_policy): output[i...] =
// params[indices[i..., :]], a slice params.shape[depth:] per index row;
// output shape indices.shape[:-1] + params.shape[depth:]. An out-of-range
// row is an error, or (bad_indices_policy "IGNORE") a slice of zeros.
// Errors (InvalidArgument naming the node): params or indices scalars,
// depth above params' rank, rows into an empty params, a row out of range.
#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nd_index_util.h"

namespace stepflow {
namespace {

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    if (ctx->HasAttr("bad_indices_policy")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    }
    OP_REQUIRES(
        ctx,
        policy.empty() || policy == "DEFAULT" || policy == "ERROR" ||
            policy == "IGNORE",
        NodeInvalidArgument(*this, "Invalid bad_indices_policy: ", policy));
    ignore_bad_ = policy == "IGNORE";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                NodeInvalidArgument(ctx, "params must be at least a vector"));
    OP_REQUIRES(ctx, indices.dims() >= 1,
                NodeInvalidArgument(ctx, "indices must be at least a vector"));
    const int64_t depth = indices.dim_size(indices.dims() - 1);
    OP_REQUIRES(ctx, depth <= params.dims(),
                NodeInvalidArgument(ctx,
                                    "index innermost dimension length must be "
                                    "<= params rank; saw: ",
                                    depth, " vs. ", params.dims()));
    NdIndexRows rows;
    OP_REQUIRES_OK(ctx, ReadNdIndexRows(*this, indices, params.shape(), &rows));
    const int64_t n = static_cast<int64_t>(rows.offsets.size());
    OP_REQUIRES(ctx, n == 0 || params.NumElements() > 0,
                NodeInvalidArgument(ctx,
                                    "Requested more than 0 entries, but params "
                                    "is empty.  Params shape: ",
                                    params.shape().DebugString()));
    OP_REQUIRES(ctx, ignore_bad_ || rows.first_bad < 0,
                NodeInvalidArgument(ctx, "indices[", rows.first_bad, "] = ",
                                    NdIndexRowString(indices, rows.first_bad),
                                    " does not index into param shape ",
                                    params.shape().DebugString()));
    TensorShape shape;
    for (int d = 0; d + 1 < indices.dims(); ++d)
      shape.AddDim(indices.dim_size(d));
    for (int d = static_cast<int>(depth); d < params.dims(); ++d) {
      shape.AddDim(params.dim_size(d));
    }
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, params.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const bool ok = DispatchByElementSize(params.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* p = params.base<U>();
      U* o = out->base<U>();
      for (int64_t r = 0; r < n; ++r, o += rows.slice) {
        const int64_t off = rows.offsets[r];
        if (off < 0) {
          std::fill(o, o + rows.slice, U{});
        } else {
          std::copy(p + off, p + off + rows.slice, o);
        }
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "GatherNd does not support dtype ",
                                    DataTypeString(params.dtype())));
  }

 private:
  bool ignore_bad_ = false;
};

REGISTER_KERNEL_BUILDER(Name("GatherNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", AllTypes())
                            .TypeConstraint("Tindices",
                                            {DT_INT16, DT_INT32, DT_INT64}),
                        GatherNdOp);

}  // namespace
}  // namespace stepflow
