// Var: the storage of one variable, kept in a device's ResourceMgr, and the
// helpers kernels use to reach it through a DT_RESOURCE handle.
//
// A Var holds a Tensor and the mutex guarding it. The tensor starts
// uninitialized (no dtype, no buffer) and gets its first value from an
// assignment. Two resource types share this layout but live apart in the
// ResourceMgr: LegacyVar for ref variables (Variable/VariableV2, found by
// container + name) and Var for resource variables (VarHandleOp handles).
//
// Ownership: the ResourceMgr holds one reference; lookups return another,
// which the caller Unrefs. A ref output (set_output_ref) points into a
// LegacyVar without holding a reference, as in TensorFlow: it stays valid
// until the variable's container is cleaned up (Session::Reset), which must
// not race with a running step that uses it.
// Thread-safety: the tensor is read and written under mu(); Var reads share
// the buffer, so resource-variable updates copy it first when it is shared
// (PrepareToUpdateVariable) and reads stay snapshots.
#ifndef STEPFLOW_RUNTIME_KERNELS_VARIABLE_H_
#define STEPFLOW_RUNTIME_KERNELS_VARIABLE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/resource_handle.pb.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {

class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype) : dtype_(dtype) {}

  // The dtype every value of this variable has.
  DataType dtype() const { return dtype_; }
  absl::Mutex* mu() const { return &mu_; }
  // The value; read and write it with mu() held.
  Tensor* tensor() { return &tensor_; }

  // "Var<float [2,3]>" or "Var<float uninitialized>".
  std::string DebugString() const override;

 private:
  const DataType dtype_;
  mutable absl::Mutex mu_;
  Tensor tensor_;
};

// A ref variable's storage (a distinct ResourceMgr type from Var).
class LegacyVar : public Var {
 public:
  using Var::Var;
};

// Resource type recorded in handles made by VarHandleOp.
inline constexpr char kVarTypeName[] = "stepflow::Var";
// A stable hash of kVarTypeName (the handle's hash_code).
uint64_t VarTypeHashCode();

// InvalidArgument unless `container` is empty or matches
// [A-Za-z0-9.][A-Za-z0-9_.\-/]* (TensorFlow's container names).
absl::Status ValidateContainerName(const std::string& container);

// A scalar DT_RESOURCE tensor holding a handle to the Var `name` in
// `container` on `device`, describing `dtype` and `shape`.
Tensor MakeVarHandleTensor(const std::string& device,
                           const std::string& container,
                           const std::string& name, DataType dtype,
                           const PartialTensorShape& shape);

// The handle carried by input `index`: InvalidArgument naming the node
// unless it is a scalar DT_RESOURCE tensor.
absl::Status HandleFromInput(OpKernelContext* ctx, int index,
                             const ResourceHandleProto** handle);

// InvalidArgument unless `handle` points at a Var on this kernel's device.
absl::Status ValidateVarHandle(OpKernelContext* ctx,
                               const ResourceHandleProto& handle);

// Finds the Var `handle` names (a new reference in *var).
// FailedPrecondition naming the variable if it does not exist (never
// assigned, or reset/destroyed); errors of ValidateVarHandle.
absl::Status LookupVar(OpKernelContext* ctx, const ResourceHandleProto& handle,
                       Var** var);

// Finds the Var, creating an uninitialized one of `dtype` if absent.
// InvalidArgument if it exists with another dtype.
absl::Status LookupOrCreateVar(OpKernelContext* ctx,
                               const ResourceHandleProto& handle,
                               DataType dtype, Var** var);

// The Variable/VariableV2 kernel: finds (or creates, uninitialized) the
// LegacyVar named by the `container` and `shared_name` attrs (defaults: the
// ResourceMgr's default container and the node name) and outputs a ref to
// its tensor. It touches no device memory, so the one class serves every
// device: CPU registers it in variable_ops.cc, the GPU kernel table
// (runtime/gpu/gpu_ops.cc) for "GPU"; Assign gives the variable its
// device's memory.
// Errors: construction, InvalidArgument for a malformed container name;
// Compute, InvalidArgument naming the node when the variable exists with
// another dtype.
// Thread-safety: Compute may run concurrently; the ResourceMgr serialises
// creation, and the ref output is guarded by the variable's mutex.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;
};

// Before an in-place update of a resource variable: if its buffer is shared
// with a tensor handed out by a read, replace it with a private copy so the
// read stays a snapshot. Requires var->mu() held exclusively.
void PrepareToUpdateVariable(Var* var);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_VARIABLE_H_
