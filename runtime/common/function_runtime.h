// LocalFunctionRuntime: the FunctionLibraryRuntime (function_runtime.h in
// runtime/framework) of one device of a session, and FunctionRuntimeSet,
// the session's runtimes, one per device.
//
// Instantiation (once per (function, attrs); the executor is kept for the
// runtime's lifetime, which is the session's):
//   - the library validates the function and everything it reaches, and
//     refuses recursion and nesting deeper than kMaxCallDepth (both
//     InvalidArgument naming the chain), unknown functions NotFound;
//   - the body (runtime/function/instantiate.h) gets one _Retval node per
//     result, and its own calls and control flow go through the same
//     lowering policy as a session's graph (lower_functional_ops.h: marked
//     If/Case/While lowered, inlinable calls inlined, the rest kept as call
//     kernels, which instantiate their functions lazily, when first run);
//   - every node is placed on this runtime's device (device requests of
//     the body are not honoured here: the lowering policy inlines a call
//     whose body asks for another device instead of keeping it), kernels
//     are private to the body's executor, which gets this runtime as its
//     function library (nested calls).
// Run follows the interface's contract; the body step runs on the device's
// Env (scheduler and clock), with no thread or time of its own.
//
// Ownership: borrows the device (and its Env) and the OpRegistry, which
// must outlive the runtime; every step run through it must have ended
// before it is destroyed. Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_FUNCTION_RUNTIME_H_
#define STEPFLOW_RUNTIME_COMMON_FUNCTION_RUNTIME_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/function.pb.h"
#include "runtime/common/device.h"
#include "runtime/common/executor.h"
#include "runtime/framework/function_runtime.h"
#include "runtime/framework/op.h"

namespace stepflow {

class LocalFunctionRuntime : public FunctionLibraryRuntime {
 public:
  LocalFunctionRuntime(Device* device, const OpRegistry* ops);
  ~LocalFunctionRuntime() override;

  // Adds the functions of `library` this runtime lacks (a session's
  // library only grows: a function never changes once defined).
  void AddFunctions(const FunctionDefLibrary& library);

  absl::Status Instantiate(const std::string& function, const AttrMap& attrs,
                           Handle* handle) override;
  DataTypeVector ArgTypes(Handle handle) const override;
  DataTypeVector RetTypes(Handle handle) const override;
  void Run(const Options& options, Handle handle, std::vector<Tensor> args,
           std::vector<Tensor>* rets, DoneCallback done) override;

  Device* device() const { return device_; }
  // Number of instantiated (function, attrs) pairs (for tests).
  size_t NumInstantiated() const;

 private:
  struct Item {
    DataTypeVector arg_types;
    DataTypeVector ret_types;
    std::unique_ptr<Executor> executor;
  };
  absl::Status Build(const std::string& function, const AttrMap& attrs,
                     Item* item) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const Item* Find(Handle handle) const;

  Device* const device_;
  const OpRegistry* const ops_;

  mutable absl::Mutex mu_;
  FunctionDefLibrary library_ ABSL_GUARDED_BY(mu_);
  // Instantiation key (function name + canonical attrs) -> handle.
  std::map<std::string, Handle> handles_ ABSL_GUARDED_BY(mu_);
  // Indexed by handle; items are never removed.
  std::vector<std::unique_ptr<Item>> items_ ABSL_GUARDED_BY(mu_);
};

// One LocalFunctionRuntime per device, for a session's lifetime.
class FunctionRuntimeSet {
 public:
  explicit FunctionRuntimeSet(const OpRegistry* ops);

  // The runtime of `device`, created on first use, with the functions of
  // `library` added. Thread-safe; the runtime lives as long as the set.
  LocalFunctionRuntime* ForDevice(Device* device,
                                  const FunctionDefLibrary& library);

 private:
  const OpRegistry* const ops_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<LocalFunctionRuntime>> runtimes_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_FUNCTION_RUNTIME_H_
