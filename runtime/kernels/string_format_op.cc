// StringFormat: fills `template` by replacing each `placeholder` with the
// next input summarized as tf.strings.format prints it
// (SummarizeForFormat, `summarize` values kept at each end of each
// dimension). The output is a scalar string.
//
// Errors: a template whose placeholder count differs from the number of
// inputs is InvalidArgument at construction, naming the node.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_summary.h"

namespace stepflow {
namespace {

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format, placeholder;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("template", &format));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("placeholder", &placeholder));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
    // The pieces are C strings in TensorFlow: each ends at a NUL.
    for (absl::string_view piece : absl::StrSplit(format, placeholder)) {
      pieces_.emplace_back(piece.substr(0, piece.find('\0')));
    }
    const int64_t placeholders = static_cast<int64_t>(pieces_.size()) - 1;
    OP_REQUIRES(ctx, placeholders == ctx->num_inputs(),
                NodeInvalidArgument(*this,
                                    "num placeholders in template and num "
                                    "inputs must match: ",
                                    placeholders, " vs. ", ctx->num_inputs()));
  }

  void Compute(OpKernelContext* ctx) override {
    std::string msg = pieces_[0];
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, SummarizeForFormat(ctx->input(i), summarize_),
                      pieces_[i + 1]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->base<std::string>()[0] = std::move(msg);
  }

 private:
  std::vector<std::string> pieces_;  // Immutable after construction.
  int64_t summarize_ = 3;
};

REGISTER_KERNEL_BUILDER(Name("StringFormat").Device(DEVICE_CPU),
                        StringFormatOp);

}  // namespace
}  // namespace stepflow
