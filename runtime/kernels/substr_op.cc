// Substr: the substring of each input string at `pos` of length `len`,
// counted in bytes (unit BYTE) or UTF-8 characters (UTF8_CHAR).
//
// pos and len must have one shape. When it is a scalar or the input's
// shape, they apply element-wise; otherwise they broadcast against the
// input, for outputs of rank 1 or 2 only (Unimplemented beyond, as in
// TensorFlow). A negative pos counts from the end; a pos outside
// [-size, size] is InvalidArgument naming the element. In bytes a negative
// len means "to the end"; in UTF-8 characters it gives the empty string.
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/bcast.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

inline bool IsTrailByte(char c) { return (c & 0xC0) == 0x80; }

// Moves *pos forward over up to n characters; true when all n were there.
template <typename T>
bool ForwardChars(absl::string_view s, T n, size_t* pos) {
  T counted = 0;
  while (counted < n && *pos < s.size()) {
    do {
      ++*pos;
    } while (*pos < s.size() && IsTrailByte(s[*pos]));
    ++counted;
  }
  return counted == n;
}

// Moves *pos back over n characters; true when all n were there.
template <typename T>
bool BackChars(absl::string_view s, T n, size_t* pos) {
  T counted = 0;
  while (counted<n&& * pos> 0) {
    do {
      --*pos;
    } while (*pos > 0 && IsTrailByte(s[*pos]));
    ++counted;
  }
  return counted == n;
}

// The substring of `s`, or false when pos is out of range.
template <typename T>
bool Substring(absl::string_view s, T pos, T len, bool utf8,
               absl::string_view* out) {
  if (!utf8) {
    const int64_t size = static_cast<int64_t>(s.size());
    int64_t p = static_cast<int64_t>(pos);
    if (p < 0) p += size;
    if (p < 0 || p > size) return false;
    // A negative len, taken as unsigned, reaches past the end.
    *out = s.substr(static_cast<size_t>(p),
                    static_cast<size_t>(static_cast<int64_t>(len)));
    return true;
  }
  size_t byte_pos = 0;
  if (pos >= 0) {
    if (!ForwardChars(s, pos, &byte_pos)) return false;
  } else {
    byte_pos = s.size();
    if (!BackChars(s, static_cast<T>(-pos), &byte_pos)) return false;
  }
  size_t byte_end = byte_pos;
  ForwardChars(s, len, &byte_end);
  *out = s.substr(byte_pos, byte_end - byte_pos);
  return true;
}

template <typename T>
class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pos = ctx->input(1);
    const Tensor& len = ctx->input(2);
    OP_REQUIRES(
        ctx, pos.shape() == len.shape(),
        NodeInvalidArgument(
            ctx, "pos and len should have the same shape, got: ",
            pos.shape().DebugString(), " vs. ", len.shape().DebugString()));
    const std::string* in = input.base<const std::string>();
    const T* p = pos.base<const T>();
    const T* l = len.base<const T>();
    const bool scalar = pos.dims() == 0;
    if (scalar || input.shape() == pos.shape()) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
      std::string* dst = out->base<std::string>();
      for (int64_t i = 0; i < input.NumElements(); ++i) {
        const int64_t j = scalar ? 0 : i;
        OP_REQUIRES_OK(ctx, One(ctx, in[i], p[j], l[j], i, &dst[i]));
      }
      return;
    }
    BCast bcast(input.shape(), pos.shape());
    OP_REQUIRES(ctx, bcast.IsValid(),
                NodeInvalidArgument(ctx, bcast.IncompatibleShapesMessage()));
    const TensorShape& shape = bcast.output_shape();
    OP_REQUIRES(ctx, shape.dims() == 1 || shape.dims() == 2,
                NodeError(absl::StatusCode::kUnimplemented, *this,
                          "Substr broadcast not implemented for ", shape.dims(),
                          " dimensions"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* dst = out->base<std::string>();
    absl::Status status;
    bcast.ForEachRow([&](int64_t xo, int64_t xs, int64_t yo, int64_t ys,
                         int64_t oo, int64_t n) {
      for (int64_t k = 0; k < n && status.ok(); ++k) {
        status = One(ctx, in[xo + k * xs], p[yo + k * ys], l[yo + k * ys],
                     oo + k, &dst[oo + k]);
      }
    });
    OP_REQUIRES_OK(ctx, status);
  }

  bool IsExpensive() const override { return false; }

 private:
  absl::Status One(OpKernelContext* ctx, const std::string& s, T pos, T len,
                   int64_t index, std::string* out) const {
    absl::string_view sub;
    if (!Substring(absl::string_view(s), pos, len, utf8_, &sub)) {
      return NodeInvalidArgument(ctx, "pos ", pos,
                                 " out of range for string at index ", index);
    }
    out->assign(sub.data(), sub.size());
    return absl::OkStatus();
  }

  bool utf8_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("Substr").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    SubstrOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("Substr").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    SubstrOp<int64_t>);

}  // namespace
}  // namespace stepflow
