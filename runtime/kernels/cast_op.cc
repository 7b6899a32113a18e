// Cast: converts between every pair of numeric/bool dtypes; same-type casts
// (also for strings) forward the input. Conversions are defined for every
// input value and follow TensorFlow's CPU kernels (x86's conversions):
// float -> int truncates toward zero and wraps modulo 2^bits into the
// target, going through int32 for targets of up to 32 bits (int64 for
// uint32 and the 64-bit targets); NaN and values outside that intermediate
// type give its minimum ("integer indefinite"), so e.g. -1.7 -> uint8 is
// 255, 1e10 -> int32 is INT32_MIN and NaN -> uint8 is 0; uint64 also takes
// [2^63, 2^64) exactly. complex -> real takes the real part; x -> bool is
// x != 0. With
// Truncate=true, float/double -> bfloat16 drops mantissa bits instead of
// rounding. Other pairs (string <-> number) are Unimplemented.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

template <typename T>
constexpr bool IsHalfLike() {
  return std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;
}

template <typename Dst, typename Src>
Dst Convert(const Src& x) {
  if constexpr (std::is_same<Dst, Src>::value) {
    return x;
  } else if constexpr (IsComplex<Src>::value) {
    if constexpr (IsComplex<Dst>::value) {
      using C = typename Dst::value_type;
      return Dst(static_cast<C>(x.real()), static_cast<C>(x.imag()));
    } else {
      return Convert<Dst>(x.real());
    }
  } else if constexpr (IsComplex<Dst>::value) {
    using C = typename Dst::value_type;
    return Dst(Convert<C>(x), C(0));
  } else if constexpr (std::is_same<Dst, bool>::value) {
    return x != Src(0);
  } else if constexpr (std::is_same<Src, bool>::value) {
    return static_cast<Dst>(x ? 1.0f : 0.0f);
  } else if constexpr (IsHalfLike<Src>()) {
    return Convert<Dst>(static_cast<float>(x));
  } else if constexpr (IsHalfLike<Dst>()) {
    return Dst(static_cast<float>(x));
  } else if constexpr (std::is_floating_point<Src>::value &&
                       std::is_integral<Dst>::value) {
    // The plain C++ cast is undefined out of range: convert to the
    // intermediate type (its minimum when NaN or out of range), then wrap.
    const double d = static_cast<double>(x);
    if constexpr (sizeof(Dst) < 4 || std::is_same<Dst, int32_t>::value) {
      const bool in_range = d > -2147483649.0 && d < 2147483648.0;
      const int32_t v = in_range ? static_cast<int32_t>(d)
                                 : std::numeric_limits<int32_t>::min();
      return static_cast<Dst>(static_cast<uint32_t>(v));
    } else {
      if constexpr (std::is_same<Dst, uint64_t>::value) {
        if (d >= 9223372036854775808.0 && d < 18446744073709551616.0) {
          return static_cast<uint64_t>(d);
        }
      }
      const bool in_range =
          d >= -9223372036854775808.0 && d < 9223372036854775808.0;
      const int64_t v = in_range ? static_cast<int64_t>(d)
                                 : std::numeric_limits<int64_t>::min();
      return static_cast<Dst>(static_cast<uint64_t>(v));
    }
  } else {
    return static_cast<Dst>(x);
  }
}

// bfloat16 by dropping the low 16 bits of the float (NaN stays NaN).
bfloat16 TruncateToBfloat16(float f) {
  if (std::isnan(f)) return std::numeric_limits<bfloat16>::quiet_NaN();
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  const uint16_t hi = static_cast<uint16_t>(bits >> 16);
  bfloat16 out;
  static_assert(sizeof(out) == sizeof(hi), "bfloat16 is 16 bits");
  std::memcpy(static_cast<void*>(&out), &hi, sizeof(hi));
  return out;
}

using CastFn = void (*)(const Tensor& in, Tensor* out, bool truncate);

template <typename Src, typename Dst>
void CastImpl(const Tensor& in, Tensor* out, bool truncate) {
  const Src* src = in.base<Src>();
  Dst* dst = out->base<Dst>();
  const int64_t n = in.NumElements();
  if constexpr (std::is_same<Dst, bfloat16>::value &&
                (std::is_same<Src, float>::value ||
                 std::is_same<Src, double>::value)) {
    if (truncate) {
      for (int64_t i = 0; i < n; ++i) {
        dst[i] = TruncateToBfloat16(static_cast<float>(src[i]));
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = Convert<Dst>(src[i]);
}

template <typename Src>
struct CastFrom {
  template <typename Dst>
  static CastFn Get() {
    if constexpr (std::is_same<Src, std::string>::value ||
                  std::is_same<Dst, std::string>::value) {
      return nullptr;
    } else {
      return &CastImpl<Src, Dst>;
    }
  }
};

template <typename Src>
CastFn GetCastFrom(DataType dst) {
  CastFn fn = nullptr;
  SF_SWITCH_ALL_TYPES(dst, fn = CastFrom<Src>::template Get<T>(), fn = nullptr);
  return fn;
}

CastFn GetCast(DataType src, DataType dst) {
  CastFn fn = nullptr;
  SF_SWITCH_ALL_TYPES(src, fn = GetCastFrom<T>(dst), fn = nullptr);
  return fn;
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    if (ctx->HasAttr("Truncate")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    }
    if (src_ != dst_) {
      fn_ = GetCast(src_, dst_);
      OP_REQUIRES(ctx, fn_ != nullptr,
                  AttachDef(absl::UnimplementedError(absl::StrCat(
                                "Cast ", DataTypeString(src_), " to ",
                                DataTypeString(dst_), " is not supported")),
                            name()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    fn_(in, out, truncate_);
  }

  bool IsExpensive() const override { return src_ != dst_; }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
  bool truncate_ = false;
  CastFn fn_ = nullptr;
};

REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", AllTypes())
                            .TypeConstraint("DstT", AllTypes()),
                        CastOp);

}  // namespace
}  // namespace stepflow
