// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input,
// block_shape, crops), with the 4-D SpaceToBatch/BatchToSpace (block_size
// attr, two spatial dims). SpaceToBatchND zero-pads the M spatial dims
// (dims 1..M), splits each into blocks of block_shape and moves the
// position within the block into the batch dim (block-major: output batch
// = block_offset * batch + b); BatchToSpaceND undoes it and crops. Errors
// (InvalidArgument naming the node): block_shape not a vector of positive
// values, paddings/crops not [M, 2] of non-negative values, input rank
// below 1 + M, padded sizes not divisible by the block, a batch not
// divisible by the block count, crops larger than the dims.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        to_batch_(type_string().rfind("SpaceToBatch", 0) == 0),
        nd_(type_string().back() == 'D') {
    if (!nd_) OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block_size_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> block, pads;
    const Tensor& pads_t = ctx->input(nd_ ? 2 : 1);
    if (nd_) {
      const Tensor& block_t = ctx->input(1);
      OP_REQUIRES(
          ctx, block_t.dims() == 1,
          NodeInvalidArgument(ctx, "block_shape must be one-dimensional"));
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, block_t, &block));
    } else {
      OP_REQUIRES(ctx, input.dims() == 4,
                  NodeInvalidArgument(ctx,
                                      "Input rank should be: 4 instead "
                                      "of: ",
                                      input.dims()));
      block.assign(2, block_size_);
    }
    const int m = static_cast<int>(block.size());
    OP_REQUIRES(ctx,
                pads_t.dims() == 2 && pads_t.dim_size(0) == m &&
                    pads_t.dim_size(1) == 2,
                NodeInvalidArgument(ctx, to_batch_ ? "paddings" : "crops",
                                    " should have shape [", m,
                                    ", 2] instead "
                                    "of ",
                                    pads_t.shape().DebugString()));
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, pads_t, &pads));
    OP_REQUIRES(ctx, input.dims() >= 1 + m,
                NodeInvalidArgument(ctx, "input rank should be >= ", 1 + m,
                                    " instead of ", input.dims()));
    int64_t blocks = 1;
    for (int i = 0; i < m; ++i) {
      OP_REQUIRES(ctx, block[i] >= 1,
                  NodeInvalidArgument(ctx,
                                      "All values in block_shape must be "
                                      "positive, got value, ",
                                      block[i]));
      // Bounded so that the block count and the batch cannot overflow.
      OP_REQUIRES(
          ctx, block[i] <= kMaxTensorBytes / blocks,
          NodeInvalidArgument(ctx, "block_shape too large: ", block[i]));
      blocks *= block[i];
    }
    // Spatial sizes on the space side (padded) and the batch side.
    const int64_t batch = input.dim_size(0);
    std::vector<int64_t> space(m), small(m);
    for (int i = 0; i < m; ++i) {
      const int64_t before = pads[2 * i], after = pads[2 * i + 1];
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  NodeInvalidArgument(ctx, to_batch_ ? "Paddings" : "Crops",
                                      " must be non-negative"));
      const int64_t dim = input.dim_size(i + 1);
      if (to_batch_) {
        space[i] = dim + before + after;
        OP_REQUIRES(ctx, space[i] % block[i] == 0,
                    NodeInvalidArgument(ctx, "padded_shape[", i, "]=", space[i],
                                        " is not divisible by block_shape[", i,
                                        "]=", block[i]));
        small[i] = space[i] / block[i];
      } else {
        small[i] = dim;
        space[i] = dim * block[i];
        OP_REQUIRES(ctx, space[i] - before - after >= 0,
                    NodeInvalidArgument(ctx, "cropped_shape[", i,
                                        "]=", space[i] - before - after,
                                        " must be non-negative"));
      }
    }
    if (!to_batch_) {
      OP_REQUIRES(ctx, batch % blocks == 0,
                  NodeInvalidArgument(ctx, "Input batch dimension (", batch,
                                      ") is not divisible by product of block "
                                      "sizes (",
                                      blocks, ")"));
    }
    OP_REQUIRES(ctx, !to_batch_ || batch <= kMaxTensorBytes / blocks,
                NodeError(absl::StatusCode::kResourceExhausted, *this,
                          "output batch ", batch, " * ", blocks, " too large"));
    const int64_t small_batch = to_batch_ ? batch * blocks : batch;
    const int64_t big_batch = to_batch_ ? batch : batch / blocks;
    int64_t inner = 1;
    for (int d = m + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
    std::vector<int64_t> dims = {to_batch_ ? small_batch : big_batch};
    for (int i = 0; i < m; ++i) {
      dims.push_back(to_batch_ ? small[i]
                               : space[i] - pads[2 * i] - pads[2 * i + 1]);
    }
    for (int d = m + 1; d < input.dims(); ++d)
      dims.push_back(input.dim_size(d));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, input.dtype(), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    // The batch side's rows [small_batch, small...]; for each, the row of
    // the space side ([big_batch, space - pads...]) it pairs with, or none
    // (padding).
    int64_t small_rows = small_batch;
    for (int i = 0; i < m; ++i) small_rows *= small[i];
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* in = input.base<U>();
      U* o = out->base<U>();
      std::vector<int64_t> pos(m);
      for (int64_t r = 0; r < small_rows; ++r) {
        int64_t rest = r;
        for (int i = m - 1; i >= 0; --i) {
          pos[i] = rest % small[i];
          rest /= small[i];
        }
        const int64_t sb = rest;  // Batch-side batch index.
        int64_t offset = sb / big_batch;
        const int64_t b = sb % big_batch;
        bool inside = true;
        int64_t big = b;
        for (int i = m - 1; i >= 0; --i) {
          pos[i] = pos[i] * block[i] + offset % block[i] - pads[2 * i];
          offset /= block[i];
        }
        for (int i = 0; i < m; ++i) {
          const int64_t extent = space[i] - pads[2 * i] - pads[2 * i + 1];
          inside = inside && pos[i] >= 0 && pos[i] < extent;
          big = big * extent + pos[i];
        }
        U* small_row = to_batch_ ? o + r * inner : nullptr;
        if (to_batch_) {
          if (inside) {
            std::copy(in + big * inner, in + (big + 1) * inner, small_row);
          } else {
            std::fill(small_row, small_row + inner, U{});
          }
        } else if (inside) {
          std::copy(in + r * inner, in + (r + 1) * inner, o + big * inner);
        }
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, type_string(), " does not support ",
                                    DataTypeString(input.dtype())));
  }

 private:
  const bool to_batch_;
  const bool nd_;
  int64_t block_size_ = 0;
};

std::vector<DataType> SpaceBatchTypes() { return RealNumberTypes(); }

REGISTER_KERNEL_BUILDER(Name("SpaceToBatchND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", SpaceBatchTypes()),
                        SpaceBatchOp);
REGISTER_KERNEL_BUILDER(Name("BatchToSpaceND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", SpaceBatchTypes()),
                        SpaceBatchOp);
REGISTER_KERNEL_BUILDER(Name("SpaceToBatch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", SpaceBatchTypes()),
                        SpaceBatchOp);
REGISTER_KERNEL_BUILDER(Name("BatchToSpace")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", SpaceBatchTypes()),
                        SpaceBatchOp);

}  // namespace
}  // namespace stepflow
