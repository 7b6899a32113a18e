// Bitcast(input; type): the input's bytes reinterpreted as `type` (a copy).
// Equal sizes keep the shape; a narrower type adds a last dim
// of size(T) / size(type); a wider one removes a last dim that must equal
// size(type) / size(T). Errors (InvalidArgument naming the node): a wider
// type whose ratio the last dim does not match.
#include <cstdint>
#include <cstring>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &in_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &out_type_));
    in_size_ = DataTypeSize(in_type_);
    out_size_ = DataTypeSize(out_type_);
    OP_REQUIRES(ctx, in_size_ > 0 && out_size_ > 0,
                NodeInvalidArgument(*this, "Cannot bitcast from ",
                                    DataTypeString(in_type_), " to ",
                                    DataTypeString(out_type_)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    OP_REQUIRES(
        ctx,
        in_size_ >= out_size_ ||
            (rank > 0 && input.dim_size(rank - 1) == out_size_ / in_size_),
        NodeInvalidArgument(ctx, "Cannot bitcast from ",
                            DataTypeString(in_type_), " to ",
                            DataTypeString(out_type_), ": shape ",
                            input.shape().DebugString()));
    TensorShape shape = input.shape();
    if (out_size_ < in_size_) {
      shape.AddDim(in_size_ / out_size_);
    } else if (out_size_ > in_size_) {
      shape.RemoveDim(rank - 1);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (input.TotalBytes() > 0) {
      std::memcpy(out->raw_data(), input.raw_data(), input.TotalBytes());
    }
  }

 private:
  DataType in_type_ = DT_INVALID, out_type_ = DT_INVALID;
  int64_t in_size_ = 0, out_size_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Bitcast").Device(DEVICE_CPU), BitcastOp);

}  // namespace
}  // namespace stepflow
