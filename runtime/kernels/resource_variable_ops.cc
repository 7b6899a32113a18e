// Resource-variable kernels: VarHandleOp, ReadVariableOp, AssignVariableOp,
// AssignAdd/AssignSubVariableOp, VarIsInitializedOp, DestroyResourceOp,
// DisableCopyOnRead.
//
// VarHandleOp only names the variable (device, container, name); the Var
// itself is created by the first AssignVariableOp. Reads return a snapshot
// that shares the variable's buffer; updates copy the buffer first when a
// snapshot still shares it (PrepareToUpdateVariable), and AssignVariableOp
// always installs a private copy of the value.
//
// Errors: reading a variable that does not exist or has no value, or
// updating one that has no value, is FailedPrecondition naming it; an
// AssignAdd/AssignSubVariableOp on a variable that does not exist is
// NotFound (TensorFlow's resource lookup error there); dtype/shape
// mismatches InvalidArgument.
//
// DisableCopyOnRead only checks that the variable exists
// (FailedPrecondition otherwise, as for a read): reads never copy here, so
// there is no mode to leave.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/refcount.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string container, shared_name;
    DataType dtype = DT_INVALID;
    PartialTensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    OP_REQUIRES_OK(ctx, ValidateContainerName(container));
    if (container.empty()) {
      container = ctx->device()->resource_manager()->default_container();
    }
    // An empty shared_name means "this node's own variable".
    if (shared_name.empty()) shared_name = ctx->name();
    handle_ = MakeVarHandleTensor(ctx->device()->name(), container, shared_name,
                                  dtype, shape);
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, handle_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor handle_;  // Immutable after construction.
};

REGISTER_KERNEL_BUILDER(Name("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);

absl::Status UninitializedError(OpKernelContext* ctx,
                                const ResourceHandleProto& handle) {
  return AttachDef(absl::FailedPreconditionError(absl::StrCat(
                       "Attempting to use uninitialized value ", handle.name(),
                       " (container=", handle.container(), ")")),
                   ctx->op_kernel().name());
}

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupVar(ctx, *handle, &var));
    ScopedUnref unref(var);
    OP_REQUIRES(ctx, var->dtype() == dtype_,
                AttachDef(absl::InvalidArgumentError(absl::StrCat(
                              "Trying to read variable ", handle->name(),
                              " with wrong dtype. Expected ",
                              DataTypeString(var->dtype()), " got ",
                              DataTypeString(dtype_))),
                          name()));
    absl::ReaderMutexLock l(var->mu());
    OP_REQUIRES(ctx, var->tensor()->IsInitialized(),
                UninitializedError(ctx, *handle));
    ctx->set_output(0, *var->tensor());
  }

  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("ReadVariableOp").Device(DEVICE_CPU),
                        ReadVariableOp);

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        AttachDef(absl::InvalidArgumentError(absl::StrCat(
                      "Variable and value dtypes don't match; respectively, ",
                      DataTypeString(dtype_), " and ",
                      DataTypeString(value.dtype()))),
                  name()));
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupOrCreateVar(ctx, *handle, dtype_, &var));
    ScopedUnref unref(var);
    absl::MutexLock l(var->mu());
    Tensor* current = var->tensor();
    if (validate_shape_ && current->IsInitialized()) {
      OP_REQUIRES(ctx, current->shape() == value.shape(),
                  AttachDef(absl::InvalidArgumentError(absl::StrCat(
                                "Trying to assign to variable ", handle->name(),
                                " with tensor with wrong shape. Expected ",
                                current->shape().DebugString(), " got ",
                                value.shape().DebugString())),
                            name()));
    }
    *current = value.DeepCopy();
  }

  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

REGISTER_KERNEL_BUILDER(Name("AssignVariableOp").Device(DEVICE_CPU),
                        AssignVariableOp);

template <typename T, bool kAdd>
class AssignUpdateVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    const Tensor& value = ctx->input(1);
    Var* var = nullptr;
    absl::Status s = LookupVar(ctx, *handle, &var);
    if (absl::IsFailedPrecondition(s)) s = absl::NotFoundError(s.message());
    OP_REQUIRES_OK(ctx, s);
    ScopedUnref unref(var);
    OP_REQUIRES(
        ctx, var->dtype() == value.dtype(),
        AttachDef(absl::InvalidArgumentError(absl::StrCat(
                      "Variable ", handle->name(), " holds ",
                      DataTypeString(var->dtype()), " but the update is ",
                      DataTypeString(value.dtype()))),
                  name()));
    absl::MutexLock l(var->mu());
    OP_REQUIRES(ctx, var->tensor()->IsInitialized(),
                UninitializedError(ctx, *handle));
    OP_REQUIRES(
        ctx, var->tensor()->shape() == value.shape(),
        AttachDef(absl::InvalidArgumentError(absl::StrCat(
                      "Cannot update variable ", handle->name(), " with shape ",
                      var->tensor()->shape().DebugString(),
                      " using a Tensor with shape ",
                      value.shape().DebugString(), ", shapes must be equal.")),
                  name()));
    PrepareToUpdateVariable(var);
    auto v = var->tensor()->flat<T>();
    auto u = value.flat<T>();
    if (kAdd) {
      v += u;
    } else {
      v -= u;
    }
  }

  bool IsExpensive() const override { return false; }
};

#define SF_REGISTER_ASSIGN_UPDATE(T)                        \
  REGISTER_KERNEL_BUILDER(Name("AssignAddVariableOp")       \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("dtype"),  \
                          AssignUpdateVariableOp<T, true>); \
  REGISTER_KERNEL_BUILDER(Name("AssignSubVariableOp")       \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("dtype"),  \
                          AssignUpdateVariableOp<T, false>);
SF_CALL_NUMBER_TYPES(SF_REGISTER_ASSIGN_UPDATE)
#undef SF_REGISTER_ASSIGN_UPDATE

class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    OP_REQUIRES_OK(ctx, ValidateVarHandle(ctx, *handle));
    bool initialized = false;
    Var* var = nullptr;
    if (ctx->resource_manager()
            ->Lookup<Var>(handle->container(), handle->name(), &var)
            .ok()) {
      ScopedUnref unref(var);
      absl::ReaderMutexLock l(var->mu());
      initialized = var->tensor()->IsInitialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp").Device(DEVICE_CPU),
                        VarIsInitializedOp);

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    OP_REQUIRES_OK(ctx, ValidateVarHandle(ctx, *handle));
    absl::Status s = ctx->resource_manager()->Delete<Var>(handle->container(),
                                                          handle->name());
    if (!s.ok() && !(ignore_lookup_error_ && absl::IsNotFound(s))) {
      ctx->SetStatus(AttachDef(s, name()));
    }
  }

  bool IsExpensive() const override { return false; }

 private:
  bool ignore_lookup_error_ = true;
};

REGISTER_KERNEL_BUILDER(Name("DestroyResourceOp").Device(DEVICE_CPU),
                        DestroyResourceOp);

class DisableCopyOnReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandleProto* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupVar(ctx, *handle, &var));
    var->Unref();
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("DisableCopyOnRead").Device(DEVICE_CPU),
                        DisableCopyOnReadOp);

}  // namespace
}  // namespace stepflow
