// Where(input): the coordinates of the input's non-zero (true) elements,
// an int64 matrix [count, rank] in row-major order. Errors: InvalidArgument
// naming the node for a scalar input; Unimplemented for half (TensorFlow's
// CPU kernel refuses it at run time).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    OP_REQUIRES(
        ctx, rank > 0,
        NodeInvalidArgument(ctx, "WhereOp : Unhandled input dimensions: 0"));
    // As in TensorFlow, whose CPU kernel refuses half inputs.
    constexpr bool kIsHalf = std::is_same_v<T, half>;
    OP_REQUIRES(ctx, !kIsHalf,
                NodeError(absl::StatusCode::kUnimplemented, *this,
                          "No WhereOp available for float16/half type on "
                          "CPU"));
    const T* in = input.base<T>();
    const int64_t n = input.NumElements();
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < n; ++i) {
      if (in[i] != T(0)) hits.push_back(i);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({static_cast<int64_t>(hits.size()), rank}), &out));
    int64_t* o = out->base<int64_t>();
    for (int64_t flat : hits) {
      for (int d = rank - 1; d >= 0; --d) {
        o[d] = flat % input.dim_size(d);
        flat /= input.dim_size(d);
      }
      o += rank;
    }
  }
};

#define REGISTER(T)        \
  REGISTER_KERNEL_BUILDER( \
      Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>);
SF_CALL_POD_TYPES(REGISTER)
#undef REGISTER

}  // namespace
}  // namespace stepflow
