// ReverseSequence(input, seq_lengths; seq_dim, batch_dim): for each index b
// along batch_dim, the first seq_lengths[b] elements along seq_dim are
// reversed; the rest are copied. Errors (InvalidArgument naming the node):
// seq_dim == batch_dim, either outside [0, rank), seq_lengths not a vector
// of input.dim(batch_dim) values in [0, input.dim(seq_dim)].
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& lens_t = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, lens_t.dims() == 1,
                NodeInvalidArgument(ctx, "seq_lens input must be 1-dim, not ",
                                    lens_t.dims()));
    OP_REQUIRES(ctx, batch_dim_ != seq_dim_,
                NodeInvalidArgument(ctx, "batch_dim == seq_dim == ", seq_dim_));
    OP_REQUIRES(ctx, seq_dim_ >= 0 && seq_dim_ < rank,
                NodeInvalidArgument(ctx, "seq_dim must be < input rank", " ( ",
                                    seq_dim_, " vs. ", rank, ")"));
    OP_REQUIRES(ctx, batch_dim_ >= 0 && batch_dim_ < rank,
                NodeInvalidArgument(ctx, "batch_dim must be < input rank",
                                    " ( ", batch_dim_, " vs. ", rank, ")"));
    const int bd = static_cast<int>(batch_dim_),
              sd = static_cast<int>(seq_dim_);
    OP_REQUIRES(ctx, lens_t.NumElements() == input.dim_size(bd),
                NodeInvalidArgument(ctx, "Length of seq_lens != input.dims(",
                                    bd, "), (", lens_t.NumElements(), " vs. ",
                                    input.dim_size(bd), ")"));
    std::vector<int64_t> lens;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, lens_t, &lens));
    for (size_t d = 0; d < lens.size(); ++d) {
      OP_REQUIRES(ctx, lens[d] >= 0,
                  NodeInvalidArgument(ctx, "seq_lens(", d, ") < 0"));
      OP_REQUIRES(
          ctx, lens[d] <= input.dim_size(sd),
          NodeInvalidArgument(ctx, "seq_lens(", d, ") > input.dims(", sd, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t total = input.NumElements();
    if (total == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    const int64_t bs = strides[bd], ss = strides[sd];
    const int64_t bn = input.dim_size(bd), sn = input.dim_size(sd);
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* in = input.base<U>();
      U* o = out->base<U>();
      for (int64_t i = 0; i < total; ++i) {
        const int64_t b = (i / bs) % bn, s = (i / ss) % sn;
        o[i] = s < lens[b] ? in[i + (lens[b] - 1 - 2 * s) * ss] : in[i];
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "ReverseSequence does not support ",
                                    DataTypeString(input.dtype())));
  }

 private:
  int64_t seq_dim_ = 0, batch_dim_ = 0;
};

REGISTER_KERNEL_BUILDER(
    Name("ReverseSequence").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    ReverseSequenceOp);

}  // namespace
}  // namespace stepflow
