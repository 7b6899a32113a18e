// StringSplit and StringSplitV2: split each string of a vector into tokens,
// returned as a SparseTensor (indices [N,2] int64, values [N] string,
// dense shape [batch, max tokens]).
//
// StringSplit splits at any byte of `delimiter` (each byte is its own
// token when the delimiter is empty), dropping empty tokens when
// skip_empty; an empty string has no tokens. StringSplitV2 splits as Python's
// str.split: at each occurrence of the whole `sep`, or, for an empty sep, at
// runs of ASCII whitespace with no empty tokens; after `maxsplit` splits (when
// >= 0) the rest of the string is the last token (maxsplit 0: the string
// itself).
//
// Errors: an input that is not a vector or a separator that is not a
// scalar is InvalidArgument naming the node.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

using Tokens = std::vector<absl::string_view>;

std::vector<absl::string_view> SplitAnyOf(absl::string_view s,
                                          absl::string_view delimiter,
                                          bool skip_empty) {
  if (s.empty()) return {};
  if (delimiter.empty()) {
    Tokens out;
    for (size_t i = 0; i < s.size(); ++i) out.push_back(s.substr(i, 1));
    return out;
  }
  if (skip_empty) {
    return absl::StrSplit(s, absl::ByAnyChar(delimiter), absl::SkipEmpty());
  }
  return absl::StrSplit(s, absl::ByAnyChar(delimiter));
}

void SkipWhitespace(absl::string_view* s) {
  size_t i = 0;
  while (i < s->size() && absl::ascii_isspace((*s)[i])) ++i;
  s->remove_prefix(i);
}

Tokens SplitPython(absl::string_view s, absl::string_view sep,
                   int64_t maxsplit) {
  Tokens out;
  if (maxsplit == 0) return {s};
  int64_t splits = 0;
  if (sep.empty()) {
    SkipWhitespace(&s);
    while (!s.empty()) {
      size_t n = 0;
      while (n < s.size() && !absl::ascii_isspace(s[n])) ++n;
      out.push_back(s.substr(0, n));
      s.remove_prefix(n);
      SkipWhitespace(&s);
      if (maxsplit > 0 && ++splits == maxsplit) {
        out.push_back(s);
        return out;
      }
    }
    return out;
  }
  for (;;) {
    const size_t at = s.find(sep);
    if (at == absl::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + sep.size());
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  out.push_back(s);
  return out;
}

// Checks the operands, splits each string with split(s, sep) and writes
// the SparseTensor outputs.
template <typename SplitFn>
void SplitToSparse(OpKernelContext* ctx, const char* sep_name, SplitFn split) {
  const Tensor& input = ctx->input(0);
  const Tensor& sep = ctx->input(1);
  OP_REQUIRES(ctx, input.dims() == 1,
              NodeInvalidArgument(ctx, "input must be a vector, got shape: ",
                                  input.shape().DebugString()));
  OP_REQUIRES(ctx, sep.dims() == 0,
              NodeInvalidArgument(
                  ctx, sep_name,
                  " must be a scalar, got shape: ", sep.shape().DebugString()));
  const std::string* in = input.base<const std::string>();
  const absl::string_view separator = sep.base<const std::string>()[0];
  const int64_t batch = input.NumElements();
  std::vector<Tokens> tokens(batch);
  int64_t total = 0, widest = 0;
  for (int64_t i = 0; i < batch; ++i) {
    tokens[i] = split(absl::string_view(in[i]), separator);
    total += static_cast<int64_t>(tokens[i].size());
    widest = std::max<int64_t>(widest, tokens[i].size());
  }
  Tensor* indices = nullptr;
  Tensor* values = nullptr;
  Tensor* shape = nullptr;
  OP_REQUIRES_OK(ctx,
                 ctx->allocate_output(0, TensorShape({total, 2}), &indices));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
  int64_t* idx = indices->base<int64_t>();
  std::string* val = values->base<std::string>();
  int64_t k = 0;
  for (int64_t i = 0; i < batch; ++i) {
    for (size_t j = 0; j < tokens[i].size(); ++j, ++k) {
      idx[2 * k] = i;
      idx[2 * k + 1] = static_cast<int64_t>(j);
      val[k].assign(tokens[i][j].data(), tokens[i][j].size());
    }
  }
  shape->base<int64_t>()[0] = batch;
  shape->base<int64_t>()[1] = widest;
}

class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_empty", &skip_empty_));
  }
  void Compute(OpKernelContext* ctx) override {
    SplitToSparse(ctx, "delimiter",
                  [this](absl::string_view s, absl::string_view d) {
                    return SplitAnyOf(s, d, skip_empty_);
                  });
  }

 private:
  bool skip_empty_ = true;
};

REGISTER_KERNEL_BUILDER(Name("StringSplit").Device(DEVICE_CPU), StringSplitOp);

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("maxsplit", &maxsplit_));
  }
  void Compute(OpKernelContext* ctx) override {
    SplitToSparse(ctx, "sep", [this](absl::string_view s, absl::string_view d) {
      return SplitPython(s, d, maxsplit_);
    });
  }

 private:
  int64_t maxsplit_ = -1;
};

REGISTER_KERNEL_BUILDER(Name("StringSplitV2").Device(DEVICE_CPU),
                        StringSplitV2Op);

}  // namespace
}  // namespace stepflow
