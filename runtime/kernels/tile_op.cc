// Tile(input, multiples): repeats the input multiples[i] times along dim i.
// Errors (InvalidArgument naming the node): multiples not a vector of length
// rank, negative multiples; oversize outputs are ResourceExhausted; a uint16
// input that needs copying is Unimplemented (TensorFlow's CPU kernel has no
// uint16 case).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Fills `out` (dims in[d]*mult[d]) from `in` recursively: each level writes
// the first copy of its slab from the level below, then duplicates it.
template <typename U>
void TileDim(int d, const std::vector<int64_t>& in_dims,
             const std::vector<int64_t>& mult,
             const std::vector<int64_t>& in_strides,
             const std::vector<int64_t>& out_strides, const U* in, U* out) {
  const int rank = static_cast<int>(in_dims.size());
  const int64_t n = in_dims[d];
  if (d == rank - 1) {
    std::copy(in, in + n, out);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      TileDim(d + 1, in_dims, mult, in_strides, out_strides,
              in + i * in_strides[d], out + i * out_strides[d]);
    }
  }
  const int64_t block = n * out_strides[d];
  for (int64_t m = 1; m < mult[d]; ++m) {
    std::copy(out, out + block, out + m * block);
  }
}

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(
        ctx, multiples.dims() == 1 && multiples.dim_size(0) == rank,
        NodeInvalidArgument(
            ctx, "Expected multiples argument to be a vector of length ", rank,
            " but got shape ", multiples.shape().DebugString()));
    std::vector<int64_t> mult;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, multiples, &mult));
    std::vector<int64_t> in_dims(rank), out_dims(rank);
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, mult[i] >= 0,
                  NodeInvalidArgument(ctx, "Expected multiples[", i,
                                      "] >= 0, but got ", mult[i]));
      in_dims[i] = input.dim_size(i);
      OP_REQUIRES(
          ctx, in_dims[i] == 0 || mult[i] <= INT64_MAX / in_dims[i],
          NodeInvalidArgument(ctx, "Tile output dimension ", i, " overflows"));
      out_dims[i] = in_dims[i] * mult[i];
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx,
                   MakeOutputShape(*this, out_dims, input.dtype(), &shape));
    if (shape == input.shape()) {  // All multiples 1 (or empty and unchanged).
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    if (rank == 0) return;  // Unreachable: a scalar's shape never changes.
    OP_REQUIRES(ctx, input.dtype() != DT_UINT16,
                AttachDef(absl::UnimplementedError(absl::StrCat(
                              "TileOp : The input data type is not "
                              "supported, DataType : uint16, "
                              "Dimension : ",
                              rank)),
                          name()));
    std::vector<int64_t> in_strides(rank, 1), out_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      in_strides[i] = in_strides[i + 1] * in_dims[i + 1];
      out_strides[i] = out_strides[i + 1] * out_dims[i + 1];
    }
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      TileDim<U>(0, in_dims, mult, in_strides, out_strides, input.base<U>(),
                 out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "Tile does not support dtype ",
                                    DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Tile").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), TileOp);

}  // namespace
}  // namespace stepflow
