// UnicodeEncode: the rows of a ragged tensor of code points (input_values
// cut by input_splits) encoded as strings in UTF-8, UTF-16-BE or
// UTF-32-BE. A value outside [0, 0x10FFFF] or a surrogate is replaced by
// `replacement_char` (errors "replace"), dropped ("ignore") or an error
// ("strict").
//
// Errors (InvalidArgument naming the node): a replacement_char outside
// [0, 0x10FFFF] (at construction); splits that are empty, do not start at
// 0, decrease, or do not end at the number of values; an invalid code
// point under "strict".
#include <string>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };

bool ValidCodePoint(int64_t c) {
  return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

void AppendBigEndian(uint32_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i)
    out->push_back(static_cast<char>(v >> (8 * i)));
}

void Append(uint32_t c, Encoding encoding, std::string* out) {
  switch (encoding) {
    case Encoding::kUtf32Be:
      AppendBigEndian(c, 4, out);
      break;
    case Encoding::kUtf16Be:
      if (c < 0x10000) {
        AppendBigEndian(c, 2, out);
      } else {
        const uint32_t v = c - 0x10000;
        AppendBigEndian(0xD800 + (v >> 10), 2, out);
        AppendBigEndian(0xDC00 + (v & 0x3FF), 2, out);
      }
      break;
    case Encoding::kUtf8:
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
      } else if (c < 0x800) {
        out->push_back(static_cast<char>(0xC0 | (c >> 6)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      } else if (c < 0x10000) {
        out->push_back(static_cast<char>(0xE0 | (c >> 12)));
        out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      } else {
        out->push_back(static_cast<char>(0xF0 | (c >> 18)));
        out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      }
      break;
  }
}

template <typename Tsplits>
class UnicodeEncodeOp : public OpKernel {
 public:
  explicit UnicodeEncodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string encoding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("errors", &errors_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_encoding", &encoding));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replacement_char", &replacement_));
    encoding_ = encoding == "UTF-8"       ? Encoding::kUtf8
                : encoding == "UTF-16-BE" ? Encoding::kUtf16Be
                                          : Encoding::kUtf32Be;
    OP_REQUIRES(ctx, replacement_ >= 0 && replacement_ <= 0x10FFFF,
                NodeInvalidArgument(
                    *this, "replacement_char out of unicode codepoint range"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& splits = ctx->input(1);
    const int64_t n = splits.NumElements();
    OP_REQUIRES(ctx, n > 0,
                NodeInvalidArgument(ctx,
                                    "Input_splits should contain elements, but "
                                    "given input_values has ",
                                    values.NumElements(), " elements"));
    const Tsplits* s = splits.base<const Tsplits>();
    OP_REQUIRES(
        ctx, s[0] == 0,
        NodeInvalidArgument(ctx, "First value in input_splits must be zero."));
    for (int64_t i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, s[i] >= s[i - 1],
                  NodeInvalidArgument(ctx,
                                      "Values in input_splits must be equal or "
                                      "in ascending order."));
    }
    OP_REQUIRES(ctx, static_cast<int64_t>(s[n - 1]) == values.NumElements(),
                NodeInvalidArgument(ctx,
                                    "Last value in input_splits must be equal "
                                    "to length of input_tensor."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n - 1}), &out));
    const int32_t* v = values.base<const int32_t>();
    std::string* dst = out->base<std::string>();
    for (int64_t row = 0; row + 1 < n; ++row) {
      for (int64_t k = s[row]; k < static_cast<int64_t>(s[row + 1]); ++k) {
        int64_t c = v[k];
        if (!ValidCodePoint(c)) {
          OP_REQUIRES(ctx, errors_ != "strict",
                      NodeInvalidArgument(ctx,
                                          "Code point is out of range for "
                                          "Unicode, or is a surrogate."));
          if (errors_ == "ignore") continue;
          c = replacement_;
        }
        Append(static_cast<uint32_t>(c), encoding_, &dst[row]);
      }
    }
  }

 private:
  std::string errors_;
  Encoding encoding_ = Encoding::kUtf8;
  int64_t replacement_ = 0xFFFD;
};

REGISTER_KERNEL_BUILDER(
    Name("UnicodeEncode").Device(DEVICE_CPU).TypeConstraint<int32_t>("Tsplits"),
    UnicodeEncodeOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("UnicodeEncode").Device(DEVICE_CPU).TypeConstraint<int64_t>("Tsplits"),
    UnicodeEncodeOp<int64_t>);

}  // namespace
}  // namespace stepflow
