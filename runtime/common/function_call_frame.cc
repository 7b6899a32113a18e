#include "runtime/common/function_call_frame.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {

FunctionCallFrame::FunctionCallFrame(DataTypeVector arg_types,
                                     DataTypeVector ret_types)
    : arg_types_(std::move(arg_types)), ret_types_(std::move(ret_types)) {
  absl::MutexLock l(&mu_);
  rets_.resize(ret_types_.size());
}

FunctionCallFrame::~FunctionCallFrame() = default;

absl::Status FunctionCallFrame::SetArgs(std::vector<Tensor> args) {
  if (args.size() != arg_types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected ", arg_types_.size(), " arguments, got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const DataType want = BaseType(arg_types_[i]);
    if (args[i].dtype() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Argument ", i, " has type ", DataTypeString(args[i].dtype()),
          " but ", DataTypeString(want), " was declared"));
    }
  }
  absl::MutexLock l(&mu_);
  args_ = std::move(args);
  args_set_ = true;
  return absl::OkStatus();
}

absl::Status FunctionCallFrame::ConsumeRetvals(std::vector<Tensor>* rets) {
  absl::MutexLock l(&mu_);
  for (size_t i = 0; i < rets_.size(); ++i) {
    if (!rets_[i].has_val) {
      return absl::InvalidArgumentError(
          absl::StrCat("Return value ", i, " (", DataTypeString(ret_types_[i]),
                       ") was not set"));
    }
  }
  rets->clear();
  rets->reserve(rets_.size());
  for (Retval& r : rets_) {
    rets->push_back(std::move(r.val));
    r.val = Tensor();
    r.has_val = false;
  }
  return absl::OkStatus();
}

absl::Status FunctionCallFrame::GetArg(int index, const Tensor** val) {
  absl::MutexLock l(&mu_);
  if (index < 0 || static_cast<size_t>(index) >= arg_types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Argument index ", index,
                                                   " is out of range [0, ",
                                                   arg_types_.size(), ")"));
  }
  if (!args_set_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Argument ", index, " read before the arguments were set"));
  }
  *val = &args_[index];
  return absl::OkStatus();
}

absl::Status FunctionCallFrame::SetRetval(int index, const Tensor& val) {
  if (index < 0 || static_cast<size_t>(index) >= ret_types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Return value index ", index,
                                                   " is out of range [0, ",
                                                   ret_types_.size(), ")"));
  }
  const DataType want = BaseType(ret_types_[index]);
  if (val.dtype() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Return value ", index, " has type ", DataTypeString(val.dtype()),
        " but ", DataTypeString(want), " was declared"));
  }
  absl::MutexLock l(&mu_);
  Retval& r = rets_[index];
  if (r.has_val) {
    return absl::InvalidArgumentError(
        absl::StrCat("Return value ", index, " was already set"));
  }
  r.val = val;
  r.has_val = true;
  return absl::OkStatus();
}

}  // namespace stepflow
