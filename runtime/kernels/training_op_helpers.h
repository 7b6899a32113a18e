// Helpers shared by the optimizer update kernels (training_ops*.cc):
// finding and locking the variables an update writes, and the argument
// checks TensorFlow's training ops make.
//
// UpdateVariables locks every variable input (refs or DT_RESOURCE handles)
// for the lifetime of the object, in a fixed order, and exposes tensors that
// share the variables' buffers: writes through them update the variables.
// Updates always hold the variables' mutexes (use_locking only chooses
// between locked and racy updates in TensorFlow; racy updates are not
// offered here). Resource variables are copied first if a read still shares
// their buffer.
//
// Errors: an uninitialized variable is FailedPrecondition naming it; a
// resource variable that does not exist is Internal ("Invalid variable
// reference", as TensorFlow reports it); a hyper-parameter that is not a
// scalar or a gradient whose shape differs from the variable's is
// InvalidArgument naming the node.
#ifndef STEPFLOW_RUNTIME_KERNELS_TRAINING_OP_HELPERS_H_
#define STEPFLOW_RUNTIME_KERNELS_TRAINING_OP_HELPERS_H_

#include <initializer_list>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/variable.h"

namespace stepflow {

// Locks the variables at some inputs of an update op and exposes their
// tensors (sharing the variables' buffers, so writes through them update
// the variables). Everything is released on destruction.
class UpdateVariables {
 public:
  UpdateVariables() = default;
  UpdateVariables(const UpdateVariables&) = delete;
  UpdateVariables& operator=(const UpdateVariables&) = delete;
  ~UpdateVariables() { Release(); }

  // Finds and locks the variables at `inputs` (each a ref or a resource
  // handle) whose values must be of `dtype`.
  absl::Status Acquire(OpKernelContext* ctx, std::initializer_list<int> inputs,
                       DataType dtype) ABSL_NO_THREAD_SAFETY_ANALYSIS;

  // The k-th acquired variable's tensor (k indexes `inputs`).
  Tensor& tensor(int k) { return tensors_[k]; }

 private:
  void Release() ABSL_NO_THREAD_SAFETY_ANALYSIS;

  std::vector<Var*> held_;
  std::vector<absl::Mutex*> locked_;
  std::vector<Tensor> tensors_;
};

// InvalidArgument naming the node unless `t` is a scalar ("<what> is not a
// scalar: [..]").
absl::Status RequireScalar(const OpKernel& op, const Tensor& t,
                           const char* what);

// InvalidArgument naming the node unless `other` has `var`'s shape.
absl::Status RequireSameShape(const OpKernel& op, const Tensor& var,
                              const Tensor& other, const char* other_name);

// The checks every SparseApply* op makes on var, grad and indices: var at
// least 1-D, indices a vector, grad of var's inner dimensions with one row
// per index, and every index within var's first dimension ("Index 7 at
// offset 1 in indices is out of range"); all are checked before any update,
// so a failing op changes nothing. InvalidArgument naming the node.
// `indices` holds int32 or int64 values; their int64 form goes to `*rows`.
absl::Status ValidateSparseUpdate(const OpKernel& op, const Tensor& var,
                                  const Tensor& grad, const Tensor& indices,
                                  std::vector<int64_t>* rows);

// OK if input 0's resource variable exists; NotFound naming the node
// otherwise (TensorFlow's resource lookup error, which scatter updates
// report where UpdateVariables would say Internal).
absl::Status RequireResourceVarExists(OpKernelContext* ctx);

// Passes the updated ref through (the ResourceApply forms have no output).
void ForwardVarRef(OpKernelContext* ctx);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TRAINING_OP_HELPERS_H_
