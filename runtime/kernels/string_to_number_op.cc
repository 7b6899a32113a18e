// StringToNumber: parses each string as a number of out_type.
//
// Floats accept what TensorFlow's parser accepts: surrounding spaces, a
// sign (spaces after it too), decimal or "0x" hexadecimal forms, "inf" and
// "nan" in any case, strings shorter than 32 bytes; values beyond the range
// become infinities. Integers are base-10 with optional sign and
// surrounding whitespace, in range (no sign but '+' for unsigned types).
//
// Errors: a string that does not parse is InvalidArgument naming it.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/numbers.h"
#include "double-conversion/string-to-double.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

const double_conversion::StringToDoubleConverter& FloatParser() {
  static const auto* parser = new double_conversion::StringToDoubleConverter(
      double_conversion::StringToDoubleConverter::ALLOW_HEX |
          double_conversion::StringToDoubleConverter::ALLOW_LEADING_SPACES |
          double_conversion::StringToDoubleConverter::ALLOW_TRAILING_SPACES |
          double_conversion::StringToDoubleConverter::ALLOW_SPACES_AFTER_SIGN |
          double_conversion::StringToDoubleConverter::ALLOW_CASE_INSENSIBILITY,
      0.0, std::numeric_limits<double>::quiet_NaN(), "inf", "nan");
  return *parser;
}

// The longest float string TensorFlow's parser takes, plus one.
constexpr size_t kFloatBufferSize = 32;

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (s.size() >= kFloatBufferSize) return false;
    int processed = -1;
    const int len = static_cast<int>(s.size());
    if constexpr (std::is_same_v<T, float>) {
      *out = FloatParser().StringToFloat(s.data(), len, &processed);
    } else {
      *out = FloatParser().StringToDouble(s.data(), len, &processed);
    }
    return processed > 0;
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
