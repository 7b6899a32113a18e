// StaticRegexFullMatch: for each string of the input, whether the whole
// string matches the `pattern` attr (RE2 syntax, as TensorFlow's). The
// output is a bool tensor of the input's shape. A pattern RE2 rejects is
// InvalidArgument naming the node, at kernel construction.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {
namespace {

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    re_ = std::make_unique<RE2>(pattern, RE2::Quiet);
    OP_REQUIRES(
        ctx, re_->ok(),
        AttachDef(absl::InvalidArgumentError(absl::StrCat(
                      "Invalid pattern: ", pattern, ", error: ", re_->error())),
                  ctx->name()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.base<const std::string>();
    bool* dst = out->base<bool>();
    const int64_t n = input.NumElements();
    for (int64_t i = 0; i < n; ++i) dst[i] = RE2::FullMatch(in[i], *re_);
  }

  bool IsExpensive() const override { return false; }

 private:
  std::unique_ptr<RE2> re_;
};

REGISTER_KERNEL_BUILDER(Name("StaticRegexFullMatch").Device(DEVICE_CPU),
                        StaticRegexFullMatchOp);

}  // namespace
}  // namespace stepflow
