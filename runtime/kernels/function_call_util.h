// Helpers of the call kernels (PartitionedCall, If, Case, While): a
// function handle instantiated once per function runtime, running it from
// a kernel with the step's services, reading a cond tensor as a bool, and
// setting a call's outputs from a function's results.
//
// Errors carry the calling node: a body's error keeps its code and its
// message (which names the body node); the executor adds the call node's
// name when the kernel sets it, so a failure reads
// "<body error> [[{{node <body node>}}]] [[<call>]]".
// Thread-safety: FunctionHandleCache is thread-safe; the functions are
// pure or use only their arguments.
#ifndef STEPFLOW_RUNTIME_KERNELS_FUNCTION_CALL_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_FUNCTION_CALL_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/attr_value.pb.h"
#include "runtime/framework/function_runtime.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// The function `func` names, instantiated (with func's attrs) on the
// function runtime of the context it is first asked from; asked from a
// different runtime, it instantiates again there.
class FunctionHandleCache {
 public:
  explicit FunctionHandleCache(NameAttrList func) : func_(std::move(func)) {}

  // Internal when the context has no function runtime; otherwise the
  // instantiation's error, naming the node.
  absl::Status Get(OpKernelContext* ctx, FunctionLibraryRuntime::Handle* h);
  const std::string& name() const { return func_.name(); }

 private:
  const NameAttrList func_;
  absl::Mutex mu_;
  FunctionLibraryRuntime* runtime_ ABSL_GUARDED_BY(mu_) = nullptr;
  FunctionLibraryRuntime::Handle handle_ ABSL_GUARDED_BY(mu_) = -1;
};

// The func-valued attr `attr` of the kernel's node (InvalidArgument when
// missing or not a function), or its list(func) attr.
absl::Status GetFunctionAttr(OpKernelConstruction* ctx, const char* attr,
                             NameAttrList* func);
absl::Status GetFunctionListAttr(OpKernelConstruction* ctx, const char* attr,
                                 std::vector<NameAttrList>* funcs);

// Copies of the kernel's inputs [start, num_inputs).
std::vector<Tensor> InputsFrom(OpKernelContext* ctx, int start);

// Runs `handle` on ctx's function runtime with the step's services; the
// results land in *rets; `done` gets the body's status. The body's step
// stats are named "<this node's stats name>/<body node>".
void CallFunction(OpKernelContext* ctx, FunctionLibraryRuntime::Handle handle,
                  std::vector<Tensor> args, std::vector<Tensor>* rets,
                  std::function<void(const absl::Status&)> done);

// The whole call of a PartitionedCall/If/Case kernel: instantiates `f`,
// checks its arguments against the node's inputs [first_input, n) and its
// results against the node's outputs, runs it on those inputs, sets the
// outputs (or the status) and calls `done`.
void RunNodeFunction(OpKernelContext* ctx, FunctionHandleCache* f,
                     int first_input, std::function<void()> done);

// TensorFlow's reading of a cond (If, While): a scalar is true when
// non-zero (a string when non-empty); any other tensor when it has
// elements. InvalidArgument naming the node for a scalar of a type that has
// no truth value.
absl::Status CondToBool(OpKernelContext* ctx, const Tensor& cond, bool* value);

// Sets output i to rets[i]; InvalidArgument naming the node when the
// counts or dtypes differ from the node's outputs.
absl::Status SetCallOutputs(OpKernelContext* ctx, std::vector<Tensor>* rets);

// InvalidArgument naming the node unless `types` equals `expected`; `what`
// says which list is compared ("then_branch's arguments").
absl::Status CheckTypes(OpKernelContext* ctx, const std::string& what,
                        const DataTypeVector& types,
                        const DataTypeVector& expected);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_FUNCTION_CALL_UTIL_H_
