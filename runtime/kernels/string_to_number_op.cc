// StringToNumber: parses each string as a number of out_type, as
// TensorFlow does (Abseil's SimpleAtof/SimpleAtod/SimpleAtoi): surrounding
// ASCII whitespace and a leading '+' are accepted; floats take decimal and
// "0x" hexadecimal forms, "inf", "infinity" and "nan" in any case, and
// overflow to infinity; integers are base 10 and in range (no '-' for
// unsigned types).
//
// Errors: a string that does not parse is InvalidArgument naming it.
#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    return absl::SimpleAtof(s, out);
  } else if constexpr (std::is_same_v<T, double>) {
    return absl::SimpleAtod(s, out);
  } else {
    return absl::SimpleAtoi(s, out);
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.base<const std::string>();
    T* dst = out->base<T>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      OP_REQUIRES(
          ctx, ParseNumber(src[i], &dst[i]),
          NodeInvalidArgument(
              ctx,
              "StringToNumberOp could not correctly convert string: ", src[i]));
    }
  }

  bool IsExpensive() const override { return false; }
};

#define REGISTER_STRING_TO_NUMBER(T)                                           \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("StringToNumber").Device(DEVICE_CPU).TypeConstraint<T>("out_type"), \
      StringToNumberOp<T>);
REGISTER_STRING_TO_NUMBER(float)
REGISTER_STRING_TO_NUMBER(double)
REGISTER_STRING_TO_NUMBER(int32_t)
REGISTER_STRING_TO_NUMBER(int64_t)
REGISTER_STRING_TO_NUMBER(uint32_t)
REGISTER_STRING_TO_NUMBER(uint64_t)
#undef REGISTER_STRING_TO_NUMBER

}  // namespace
}  // namespace stepflow
