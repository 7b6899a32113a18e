// UnicodeDecode and UnicodeDecodeWithOffsets: each string of `input` (any
// shape, taken flat) decoded from `input_encoding` into code points, as a
// ragged result: row_splits (NumElements + 1 entries, Tsplits int32 or
// int64) cut char_values (int32) into one row per string. The WithOffsets
// form also gives, per code point, the byte offset in its string where it
// starts (char_to_byte_starts, int64).
//
// Decoding is ICU's (Debian libicu-dev) converter for the named encoding,
// so any name ICU opens is accepted ("UTF-8", "UTF-16-BE", "UTF-32-BE",
// "ISO-8859-1", "Shift_JIS", ...), reset at the start of each string. An
// ill-formed or unmappable sequence is a format error: it becomes
// `replacement_char` (errors "replace"), is dropped with its bytes
// counted in the offsets that follow ("ignore"), or fails the step
// ("strict"). With replace_control_characters, code points 0..0x1F are
// treated as format errors that "strict" does not reject.
//
// Errors (InvalidArgument naming the node): an encoding ICU cannot open
// or a replacement_char outside [0, 0x10FFFF] (at construction); a format
// error under "strict" ("Invalid formatting on input string"). Thread-safe:
// each Compute opens its own converter.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "unicode/ucnv.h"
#include "unicode/ucnv_err.h"

namespace stepflow {
namespace {

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using Converter = std::unique_ptr<UConverter, ConverterCloser>;

Converter OpenConverter(const std::string& encoding) {
  UErrorCode status = U_ZERO_ERROR;
  UConverter* c = ucnv_open(encoding.c_str(), &status);
  if (U_FAILURE(status)) {
    if (c != nullptr) ucnv_close(c);
    return nullptr;
  }
  return Converter(c);
}

// ICU's to-Unicode callback: notes that the sequence just read was
// ill-formed, irregular or unassigned, then substitutes as ICU's default
// does. `context` points at the flag.
void NoteFormatError(const void* context, UConverterToUnicodeArgs* args,
                     const char* code_units, int32_t length,
                     UConverterCallbackReason reason, UErrorCode* status) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL ||
      reason == UCNV_IRREGULAR) {
    *static_cast<bool*>(const_cast<void*>(context)) = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, code_units, length, reason,
                                status);
}

enum class ErrorPolicy { kStrict, kReplace, kIgnore };

// The decoded rows, grown one code point at a time.
struct DecodedRows {
  std::vector<int64_t> row_splits;
  std::vector<int32_t> char_values;
  std::vector<int64_t> byte_starts;
};

template <typename Tsplits, bool kWithOffsets>
class UnicodeDecodeOp : public OpKernel {
 public:
  explicit UnicodeDecodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string errors;
    bool replace_control = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("input_encoding", &encoding_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("errors", &errors));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replacement_char", &replacement_));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("replace_control_characters", &replace_control));
    replace_control_ = replace_control;
    policy_ = errors == "strict"   ? ErrorPolicy::kStrict
              : errors == "ignore" ? ErrorPolicy::kIgnore
                                   : ErrorPolicy::kReplace;
    OP_REQUIRES(ctx, replacement_ >= 0 && replacement_ <= 0x10FFFF,
                NodeInvalidArgument(
                    *this, "replacement_char out of unicode codepoint range"));
    OP_REQUIRES(ctx, OpenConverter(encoding_) != nullptr,
                NodeInvalidArgument(
                    *this, "Could not create converter for input encoding: ",
                    encoding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int64_t n = input.NumElements();
    Converter converter = OpenConverter(encoding_);
    OP_REQUIRES(
        ctx, converter != nullptr,
        NodeInvalidArgument(
            ctx, "Could not create converter for input encoding: ", encoding_));
    bool format_error = false;
    UErrorCode status = U_ZERO_ERROR;
    ucnv_setToUCallBack(converter.get(), NoteFormatError, &format_error,
                        nullptr, nullptr, &status);
    OP_REQUIRES(ctx, U_SUCCESS(status),
                NodeInvalidArgument(ctx, "Could not set up the converter: ",
                                    u_errorName(status)));
    DecodedRows rows;
    rows.row_splits.reserve(n + 1);
    rows.row_splits.push_back(0);
    const std::string* strings = input.base<const std::string>();
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, DecodeString(ctx, converter.get(), strings[i],
                                       &format_error, &rows));
      rows.row_splits.push_back(static_cast<int64_t>(rows.char_values.size()));
    }
    WriteOutputs(ctx, rows);
  }

 private:
  // Appends the code points of `s` (and their byte offsets) to `rows`.
  absl::Status DecodeString(OpKernelContext* ctx, UConverter* converter,
                            const std::string& s, bool* format_error,
                            DecodedRows* rows) const {
    ucnv_reset(converter);
    const char* source = s.data();
    const char* const limit = s.data() + s.size();
    int64_t offset = 0;
    while (source < limit) {
      const char* const start = source;
      *format_error = false;
      UErrorCode status = U_ZERO_ERROR;
      UChar32 c = ucnv_getNextUChar(converter, &source, limit, &status);
      // A failure not reported through the callback (input that ends
      // inside a stateful encoding's escape sequence) ends the string; the
      // value ICU returned is kept as it is.
      if (U_FAILURE(status)) source = limit;
      const int64_t length = source - start;
      if (*format_error && policy_ == ErrorPolicy::kStrict) {
        return NodeInvalidArgument(ctx, "Invalid formatting on input string");
      }
      if (*format_error || (replace_control_ && c <= 0x1F)) {
        if (policy_ == ErrorPolicy::kIgnore) {
          offset += length;
          continue;
        }
        c = static_cast<UChar32>(replacement_);
      }
      rows->char_values.push_back(c);
      if (kWithOffsets) rows->byte_starts.push_back(offset);
      offset += length;
    }
    return absl::OkStatus();
  }

  static void WriteOutputs(OpKernelContext* ctx, const DecodedRows& rows) {
    Tensor* splits = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({static_cast<int64_t>(rows.row_splits.size())}),
                 &splits));
    Tsplits* s = splits->base<Tsplits>();
    for (size_t i = 0; i < rows.row_splits.size(); ++i) {
      s[i] = static_cast<Tsplits>(rows.row_splits[i]);
    }
    const TensorShape values_shape(
        {static_cast<int64_t>(rows.char_values.size())});
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, values_shape, &values));
    std::copy(rows.char_values.begin(), rows.char_values.end(),
              values->base<int32_t>());
    if (kWithOffsets) {
      Tensor* starts = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, values_shape, &starts));
      std::copy(rows.byte_starts.begin(), rows.byte_starts.end(),
                starts->base<int64_t>());
    }
  }

  std::string encoding_;
  ErrorPolicy policy_ = ErrorPolicy::kReplace;
  int64_t replacement_ = 0xFFFD;
  bool replace_control_ = false;
};

#define REGISTER_UNICODE_DECODE(T)                                           \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("UnicodeDecode").Device(DEVICE_CPU).TypeConstraint<T>("Tsplits"), \
      UnicodeDecodeOp<T, false>);                                            \
  REGISTER_KERNEL_BUILDER(Name("UnicodeDecodeWithOffsets")                   \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("Tsplits"),                 \
                          UnicodeDecodeOp<T, true>)
REGISTER_UNICODE_DECODE(int32_t);
REGISTER_UNICODE_DECODE(int64_t);
#undef REGISTER_UNICODE_DECODE

}  // namespace
}  // namespace stepflow
