#include "runtime/kernels/function_call_util.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

std::string TypesString(const DataTypeVector& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    absl::StrAppend(&s, i == 0 ? "" : ", ", DataTypeString(types[i]));
  }
  return absl::StrCat(s, "]");
}

}  // namespace

absl::Status FunctionHandleCache::Get(OpKernelContext* ctx,
                                      FunctionLibraryRuntime::Handle* h) {
  FunctionLibraryRuntime* runtime = ctx->function_library();
  if (runtime == nullptr) {
    return NodeInternal(ctx, "No function runtime to run function '",
                        func_.name(), "'");
  }
  absl::MutexLock l(&mu_);
  if (runtime_ != runtime) {
    FunctionLibraryRuntime::Handle handle = -1;
    absl::Status s = runtime->Instantiate(func_.name(), func_.attr(), &handle);
    if (!s.ok()) return s;
    runtime_ = runtime;
    handle_ = handle;
  }
  *h = handle_;
  return absl::OkStatus();
}

absl::Status GetFunctionAttr(OpKernelConstruction* ctx, const char* attr,
                             NameAttrList* func) {
  const AttrValue* value = FindNodeAttr(ctx->def(), attr);
  if (value == nullptr || !value->has_func() || value->func().name().empty()) {
    return AttachDef(absl::InvalidArgumentError(absl::StrCat(
                         "attr '", attr, "' must name a function")),
                     ctx->name());
  }
  *func = value->func();
  return absl::OkStatus();
}

absl::Status GetFunctionListAttr(OpKernelConstruction* ctx, const char* attr,
                                 std::vector<NameAttrList>* funcs) {
  const AttrValue* value = FindNodeAttr(ctx->def(), attr);
  if (value == nullptr || value->list().func_size() == 0) {
    return AttachDef(absl::InvalidArgumentError(absl::StrCat(
                         "attr '", attr, "' must list at least one function")),
                     ctx->name());
  }
  funcs->assign(value->list().func().begin(), value->list().func().end());
  return absl::OkStatus();
}

std::vector<Tensor> InputsFrom(OpKernelContext* ctx, int start) {
  std::vector<Tensor> args;
  args.reserve(ctx->num_inputs() - start);
  for (int i = start; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
  return args;
}

void CallFunction(OpKernelContext* ctx, FunctionLibraryRuntime::Handle handle,
                  std::vector<Tensor> args, std::vector<Tensor>* rets,
                  std::function<void(const absl::Status&)> done) {
  FunctionLibraryRuntime::Options opts;
  opts.step_id = ctx->step_id();
  opts.rendezvous = ctx->rendezvous();
  opts.cancellation_manager = ctx->cancellation_manager();
  opts.step_container = ctx->step_container();
  opts.stats_collector = ctx->stats_collector();
  opts.caller = absl::StrCat(ctx->stats_name_prefix(), ctx->op_kernel().name());
  // The executor attaches this node's name to the status the kernel sets.
  ctx->function_library()->Run(opts, handle, std::move(args), rets,
                               std::move(done));
}

void RunNodeFunction(OpKernelContext* ctx, FunctionHandleCache* f,
                     int first_input, std::function<void()> done) {
  FunctionLibraryRuntime::Handle handle;
  OP_REQUIRES_OK_ASYNC(ctx, f->Get(ctx, &handle), done);
  FunctionLibraryRuntime* runtime = ctx->function_library();
  const OpKernel& kernel = ctx->op_kernel();
  const DataTypeVector& all_inputs = kernel.input_types();
  const DataTypeVector inputs(all_inputs.begin() + first_input,
                              all_inputs.end());
  const std::string what = absl::StrCat("Function '", f->name(), "': its ");
  OP_REQUIRES_OK_ASYNC(
      ctx,
      CheckTypes(ctx, what + "arguments", runtime->ArgTypes(handle), inputs),
      done);
  OP_REQUIRES_OK_ASYNC(
      ctx,
      CheckTypes(ctx, what + "results", runtime->RetTypes(handle),
                 kernel.output_types()),
      done);
  auto rets = std::make_shared<std::vector<Tensor>>();
  CallFunction(ctx, handle, InputsFrom(ctx, first_input), rets.get(),
               [ctx, rets, done = std::move(done)](const absl::Status& s) {
                 absl::Status result = s;
                 if (result.ok()) result = SetCallOutputs(ctx, rets.get());
                 if (!result.ok()) ctx->SetStatus(result);
                 done();
               });
}

absl::Status CondToBool(OpKernelContext* ctx, const Tensor& cond, bool* value) {
  if (cond.dims() != 0) {
    *value = cond.NumElements() > 0;
    return absl::OkStatus();
  }
  switch (cond.dtype()) {
#define SF_COND_CASE(T)                             \
  case DataTypeToEnum<T>::value:                    \
    *value = cond.scalar<T>() != static_cast<T>(0); \
    break;
    SF_COND_CASE(float)
    SF_COND_CASE(double)
    SF_COND_CASE(int32_t)
    SF_COND_CASE(uint8_t)
    SF_COND_CASE(int16_t)
    SF_COND_CASE(int8_t)
    SF_COND_CASE(int64_t)
#undef SF_COND_CASE
    case DT_BOOL:
      *value = cond.scalar<bool>();
      break;
    case DT_STRING:
      *value = !cond.scalar<std::string>().empty();
      break;
    default:
      return NodeInvalidArgument(ctx, DataTypeString(cond.dtype()),
                                 " cannot be converted to a boolean");
  }
  return absl::OkStatus();
}

absl::Status SetCallOutputs(OpKernelContext* ctx, std::vector<Tensor>* rets) {
  if (static_cast<int>(rets->size()) != ctx->num_outputs()) {
    return NodeInvalidArgument(ctx, "The function returned ", rets->size(),
                               " tensors but the node has ", ctx->num_outputs(),
                               " outputs");
  }
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    if ((*rets)[i].dtype() != ctx->expected_output_dtype(i)) {
      return NodeInvalidArgument(ctx, "The function's result ", i, " is ",
                                 DataTypeString((*rets)[i].dtype()),
                                 " but output ", i, " is ",
                                 DataTypeString(ctx->expected_output_dtype(i)));
    }
    ctx->set_output(i, (*rets)[i]);
  }
  return absl::OkStatus();
}

absl::Status CheckTypes(OpKernelContext* ctx, const std::string& what,
                        const DataTypeVector& types,
                        const DataTypeVector& expected) {
  if (types == expected) return absl::OkStatus();
  return NodeInvalidArgument(ctx, what, " are ", TypesString(types),
                             " but the node expects ", TypesString(expected));
}

}  // namespace stepflow
