#include "runtime/kernels/pooling_op_kernel.h"

namespace stepflow {

PoolingOpKernel::PoolingOpKernel(OpKernelConstruction* ctx, int spatial_dims,
                                 bool sizes_as_inputs, int ksize_index)
    : ShardedOpKernel(ctx),
      sizes_as_inputs_(sizes_as_inputs),
      ksize_index_(ksize_index) {
  OP_REQUIRES_OK(ctx, ReadPoolOptions(ctx, *this, spatial_dims,
                                      !sizes_as_inputs, &options_));
  if (ctx->HasAttr("include_batch_in_index")) {
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("include_batch_in_index", &include_batch_in_index_));
  }
}

absl::Status PoolingOpKernel::RunOptions(OpKernelContext* ctx,
                                         PoolOptions* options) const {
  *options = options_;
  if (!sizes_as_inputs_) return absl::OkStatus();
  return ReadPoolSizeInputs(ctx, ksize_index_, options);
}

}  // namespace stepflow
