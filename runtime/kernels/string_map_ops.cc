// Element-wise string maps: StringLower, StringUpper (ASCII case for the
// empty `encoding`; full Unicode case mapping by ICU for "utf-8", invalid
// bytes becoming U+FFFD), StringStrip (leading and trailing ASCII
// whitespace) and StringLength (bytes, or UTF-8 characters counted as the
// bytes that are not continuation bytes). The output has the input's shape.
//
// Errors: an `encoding` other than "" and "utf-8" is InvalidArgument at
// construction, naming the node.
#include <string>

#include "absl/strings/ascii.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "unicode/unistr.h"

namespace stepflow {
namespace {

// Maps each input string to an output string with Fn.
template <typename Fn>
void MapStrings(OpKernelContext* ctx, Fn fn) {
  const Tensor& in = ctx->input(0);
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
  const std::string* src = in.base<const std::string>();
  std::string* dst = out->base<std::string>();
  const int64_t n = in.NumElements();
  for (int64_t i = 0; i < n; ++i) dst[i] = fn(src[i]);
}

template <bool kUpper>
class StringCaseOp : public OpKernel {
 public:
  explicit StringCaseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("encoding", &encoding_));
    OP_REQUIRES(ctx, encoding_.empty() || encoding_ == "utf-8",
                NodeInvalidArgument(*this,
                                    "only utf-8 or '' (no encoding) is "
                                    "supported, received ",
                                    encoding_));
  }

  void Compute(OpKernelContext* ctx) override {
    if (encoding_.empty()) {
      MapStrings(ctx, [](const std::string& s) {
        return kUpper ? absl::AsciiStrToUpper(s) : absl::AsciiStrToLower(s);
      });
      return;
    }
    MapStrings(ctx, [](const std::string& s) {
      // Decoded as a C string, as TensorFlow does: a NUL ends it.
      icu::UnicodeString text(s.c_str(), "UTF-8");
      if (kUpper) {
        text.toUpper();
      } else {
        text.toLower();
      }
      std::string out;
      text.toUTF8String(out);
      return out;
    });
  }

  bool IsExpensive() const override { return false; }

 private:
  std::string encoding_;
};

REGISTER_KERNEL_BUILDER(Name("StringLower").Device(DEVICE_CPU),
                        StringCaseOp<false>);
REGISTER_KERNEL_BUILDER(Name("StringUpper").Device(DEVICE_CPU),
                        StringCaseOp<true>);

class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapStrings(ctx, [](const std::string& s) {
      return std::string(absl::StripAsciiWhitespace(s));
    });
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("StringStrip").Device(DEVICE_CPU), StringStripOp);

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.base<const std::string>();
    int32_t* dst = out->base<int32_t>();
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      if (!utf8_) {
        dst[i] = static_cast<int32_t>(src[i].size());
        continue;
      }
      int32_t chars = 0;
      for (unsigned char c : src[i]) chars += (c & 0xC0) != 0x80;
      dst[i] = chars;
    }
  }

  bool IsExpensive() const override { return false; }

 private:
  bool utf8_ = false;
};

REGISTER_KERNEL_BUILDER(Name("StringLength").Device(DEVICE_CPU),
                        StringLengthOp);

}  // namespace
}  // namespace stepflow
