// AsString: each element of a number, bool or string tensor as text,
// printed with a printf conversion built from the attrs: flag `fill` (one
// of ' ', '+', '-', '0', '#'), `width`, `.precision`, and for floats "e"
// (scientific), "g" (shortest) or "f"; complex values print as "(re,im)",
// half and bfloat16 as float, bools as "true"/"false" (width ignored),
// strings whole (width and fill apply, precision does not).
//
// Errors (InvalidArgument at construction, naming the node): scientific
// with shortest, a fill longer than one character or not among the flags,
// precision or scientific/shortest for an integer or bool type.
#include <complex>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// printf into a string: `format` holds one conversion per argument.
template <typename... Args>
std::string Printf(const std::string& format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format.c_str(), args...);
  if (n <= 0) return std::string();
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(&out[0], out.size(), format.c_str(), args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

template <typename T>
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t precision = -1, width = -1;
    bool scientific = false, shortest = false;
    std::string fill;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("precision", &precision));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("scientific", &scientific));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shortest", &shortest));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("width", &width));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fill", &fill));
    const DataType dtype = DataTypeToEnum<T>::value;
    OP_REQUIRES(
        ctx, !(scientific && shortest),
        NodeInvalidArgument(
            *this, "Cannot select both scientific and shortest notation"));
    OP_REQUIRES(ctx, fill.size() <= 1,
                NodeInvalidArgument(
                    *this, "Fill string must be one or fewer characters"));
    const bool floating = dtype == DT_FLOAT || dtype == DT_DOUBLE ||
                          dtype == DT_HALF || dtype == DT_BFLOAT16 ||
                          dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128;
    const bool text = dtype == DT_STRING;
    if (!floating && !text) {
      OP_REQUIRES(
          ctx, precision < 0,
          NodeInvalidArgument(*this, "precision not supported for datatype ",
                              DataTypeString(dtype)));
      OP_REQUIRES(
          ctx, !scientific && !shortest,
          NodeInvalidArgument(
              *this,
              "scientific and shortest format not supported for datatype ",
              DataTypeString(dtype)));
    }
    format_ = "%";
    if (!fill.empty()) {
      const char c = fill[0];
      OP_REQUIRES(ctx, c == ' ' || c == '+' || c == '-' || c == '0' || c == '#',
                  NodeInvalidArgument(*this, "Fill argument not supported: \"",
                                      fill, "\""));
      format_ += c;
    }
    if (width > -1) absl::StrAppend(&format_, width);
    // Strings print whole: the precision applies to numbers only.
    if (precision > -1 && !text) absl::StrAppend(&format_, ".", precision);
    switch (dtype) {
      case DT_INT8:
      case DT_INT16:
      case DT_INT32:
        format_ += "d";
        break;
      case DT_UINT8:
      case DT_UINT16:
      case DT_UINT32:
        format_ += "u";
        break;
      case DT_INT64:
        format_ += "lld";
        break;
      case DT_UINT64:
        format_ += "llu";
        break;
      case DT_STRING:
        format_ += "s";
        break;
      default:
        format_ += shortest ? "g" : scientific ? "e" : "f";
        break;
    }
    if (dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128) {
      format_ = absl::StrCat("(", format_, ",", format_, ")");
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const T* src = in.base<const T>();
    std::string* dst = out->base<std::string>();
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) dst[i] = Format(src[i]);
  }

 private:
  template <typename V>
  std::string Format(const V& v) const {
    if constexpr (std::is_same_v<V, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_same_v<V, std::string>) {
      return Printf(format_, v.c_str());
    } else if constexpr (std::is_same_v<V, complex64> ||
                         std::is_same_v<V, complex128>) {
      return Printf(format_, static_cast<double>(v.real()),
                    static_cast<double>(v.imag()));
    } else if constexpr (std::is_same_v<V, half> ||
                         std::is_same_v<V, bfloat16> ||
                         std::is_same_v<V, float>) {
      return Printf(format_, static_cast<double>(static_cast<float>(v)));
    } else if constexpr (std::is_same_v<V, int64_t>) {
      return Printf(format_, static_cast<long long>(v));  // NOLINT
    } else if constexpr (std::is_same_v<V, uint64_t>) {
      return Printf(format_, static_cast<unsigned long long>(v));  // NOLINT
    } else if constexpr (std::is_same_v<V, double>) {
      return Printf(format_, v);
    } else if constexpr (std::is_signed_v<V>) {
      return Printf(format_, static_cast<int>(v));
    } else {
      return Printf(format_, static_cast<unsigned int>(v));
    }
  }

  std::string format_;  // Immutable after construction.
};

#define REGISTER_AS_STRING(T)                                     \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("AsString").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AsStringOp<T>);
REGISTER_AS_STRING(float)
REGISTER_AS_STRING(double)
REGISTER_AS_STRING(int32_t)
REGISTER_AS_STRING(uint8_t)
REGISTER_AS_STRING(int16_t)
REGISTER_AS_STRING(int8_t)
REGISTER_AS_STRING(int64_t)
REGISTER_AS_STRING(bfloat16)
REGISTER_AS_STRING(uint16_t)
REGISTER_AS_STRING(half)
REGISTER_AS_STRING(uint32_t)
REGISTER_AS_STRING(uint64_t)
REGISTER_AS_STRING(complex64)
REGISTER_AS_STRING(complex128)
REGISTER_AS_STRING(bool)
REGISTER_AS_STRING(std::string)
#undef REGISTER_AS_STRING

}  // namespace
}  // namespace stepflow
