// Regular expressions on RE2 (TensorFlow's engine, default options):
// StaticRegexFullMatch and RegexFullMatch (does the whole string match),
// StaticRegexReplace and RegexReplace (rewrite the first match, or every
// non-overlapping match when replace_global; \0..\9 in the rewrite name
// groups). The Static forms compile their pattern once at construction;
// the others take a scalar pattern (and rewrite) input and compile it per
// step.
//
// Errors: a pattern RE2 rejects is InvalidArgument "Invalid pattern: ...,
// error: ..." naming the node (at construction for the Static forms); a
// pattern or rewrite input that is not a scalar is InvalidArgument.
// Errors are returned, never logged.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Compiles `pattern`; InvalidArgument naming the node when RE2 rejects it.
absl::Status Compile(const OpKernel& kernel, const std::string& pattern,
                     std::unique_ptr<RE2>* re) {
  RE2::Options options;
  options.set_log_errors(false);
  *re = std::make_unique<RE2>(pattern, options);
  if (!(*re)->ok()) {
    return NodeInvalidArgument(kernel, "Invalid pattern: ", pattern,
                               ", error: ", (*re)->error());
  }
  return absl::OkStatus();
}

// The scalar string of input `index`, named `what` in the error.
absl::Status ScalarInput(OpKernelContext* ctx, int index, const char* what,
                         const std::string** value) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0) {
    return NodeInvalidArgument(ctx, what, " must be scalar, but received ",
                               t.shape().DebugString());
  }
  *value = &t.base<const std::string>()[0];
  return absl::OkStatus();
}

void FullMatch(OpKernelContext* ctx, const RE2& re) {
  const Tensor& in = ctx->input(0);
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
  const std::string* src = in.base<const std::string>();
  bool* dst = out->base<bool>();
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    dst[i] = RE2::FullMatch(src[i], re);
  }
}

void Replace(OpKernelContext* ctx, const RE2& re, const std::string& rewrite,
             bool global) {
  const Tensor& in = ctx->input(0);
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
  const std::string* src = in.base<const std::string>();
  std::string* dst = out->base<std::string>();
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    dst[i] = src[i];
    if (global) {
      RE2::GlobalReplace(&dst[i], re, rewrite);
    } else {
      RE2::Replace(&dst[i], re, rewrite);
    }
  }
}

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    OP_REQUIRES_OK(ctx, Compile(*this, pattern, &re_));
  }
  void Compute(OpKernelContext* ctx) override { FullMatch(ctx, *re_); }

 private:
  std::unique_ptr<RE2> re_;  // Immutable after construction.
};

class RegexFullMatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const std::string* pattern = nullptr;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "Pattern", &pattern));
    std::unique_ptr<RE2> re;
    OP_REQUIRES_OK(ctx, Compile(*this, *pattern, &re));
    FullMatch(ctx, *re);
  }
};

class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rewrite", &rewrite_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replace_global", &global_));
    OP_REQUIRES_OK(ctx, Compile(*this, pattern, &re_));
  }
  void Compute(OpKernelContext* ctx) override {
    Replace(ctx, *re_, rewrite_, global_);
  }

 private:
  std::unique_ptr<RE2> re_;  // Immutable after construction.
  std::string rewrite_;
  bool global_ = true;
};

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("replace_global", &global_));
  }
  void Compute(OpKernelContext* ctx) override {
    const std::string* pattern = nullptr;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "Pattern", &pattern));
    std::unique_ptr<RE2> re;
    OP_REQUIRES_OK(ctx, Compile(*this, *pattern, &re));
    const std::string* rewrite = nullptr;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 2, "Rewrite", &rewrite));
    Replace(ctx, *re, *rewrite, global_);
  }

 private:
  bool global_ = true;
};

REGISTER_KERNEL_BUILDER(Name("StaticRegexFullMatch").Device(DEVICE_CPU),
                        StaticRegexFullMatchOp);
REGISTER_KERNEL_BUILDER(Name("RegexFullMatch").Device(DEVICE_CPU),
                        RegexFullMatchOp);
REGISTER_KERNEL_BUILDER(Name("StaticRegexReplace").Device(DEVICE_CPU),
                        StaticRegexReplaceOp);
REGISTER_KERNEL_BUILDER(Name("RegexReplace").Device(DEVICE_CPU),
                        RegexReplaceOp);

}  // namespace
}  // namespace stepflow
