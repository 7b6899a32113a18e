// Ref-variable kernels: Variable/VariableV2 (VariableOp, variable.h: a
// LegacyVar in the device's ResourceMgr, output as a ref), Assign,
// AssignAdd/AssignSub and IsVariableInitialized.
//
// A variable is found by (container, name): container = the `container`
// attr or the ResourceMgr's default container; name = `shared_name` or the
// node name. It is looked up on every run, so Session::Reset of its
// container leaves the next run a fresh, uninitialized variable.
//
// Writes take the variable's mutex whatever `use_locking` says (unlocked
// updates are only a throughput option; here they would be data races).
// Assign with an equal shape copies into the existing buffer, so earlier
// reads that share it see the new value, as in TensorFlow; otherwise it
// installs a private copy of the value.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/refcount.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);

absl::Status RequireRefInput(OpKernelContext* ctx, int index) {
  if (ctx->input_is_ref(index)) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(FormatNodeName(ctx->op_kernel().name()), " input ", index,
                   " must be a reference"));
}

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireRefInput(ctx, 0));
    const Tensor& rhs = ctx->input(1);
    OP_REQUIRES(ctx, rhs.IsInitialized(),
                absl::InternalError(absl::StrCat("Right hand side of ",
                                                 FormatNodeName(name()),
                                                 " is not initialized")));
    {
      absl::MutexLock l(ctx->input_ref_mutex(0));
      Tensor lhs = ctx->mutable_input(0, /*lock_held=*/true);
      const bool same_shape = lhs.IsInitialized() && lhs.shape() == rhs.shape();
      if (validate_shape_ && lhs.IsInitialized()) {
        OP_REQUIRES(
            ctx, same_shape,
            AttachDef(absl::InvalidArgumentError(absl::StrCat(
                          "Assign requires shapes of both tensors to match. "
                          "lhs shape= ",
                          lhs.shape().DebugString(),
                          " rhs shape= ", rhs.shape().DebugString())),
                      name()));
      }
      if (same_shape && lhs.dtype() == rhs.dtype() &&
          DataTypeIsMemcpyable(rhs.dtype())) {
        // In place: `lhs` shares the variable's buffer.
        if (rhs.TotalBytes() > 0) {
          std::memmove(lhs.raw_data(), rhs.raw_data(), rhs.TotalBytes());
        }
      } else {
        ctx->replace_ref_input(0, rhs.DeepCopy(), /*lock_held=*/true);
      }
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
};

REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU), AssignOp);

template <typename T, bool kAdd>
class DenseUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireRefInput(ctx, 0));
    const Tensor& value = ctx->input(1);
    {
      absl::MutexLock l(ctx->input_ref_mutex(0));
      Tensor var = ctx->mutable_input(0, /*lock_held=*/true);
      OP_REQUIRES(ctx, var.IsInitialized(),
                  AttachDef(absl::FailedPreconditionError(absl::StrCat(
                                "Attempting to use uninitialized value ",
                                def().input(0))),
                            name()));
      OP_REQUIRES(ctx, var.dtype() == value.dtype(),
                  absl::InvalidArgumentError(absl::StrCat(
                      FormatNodeName(name()), ": variable holds ",
                      DataTypeString(var.dtype()), " but the update is ",
                      DataTypeString(value.dtype()))));
      OP_REQUIRES(ctx, var.shape() == value.shape(),
                  AttachDef(absl::InvalidArgumentError(absl::StrCat(
                                "Parameters and update must be the same shape: "
                                "lhs shape= ",
                                var.shape().DebugString(),
                                " rhs shape= ", value.shape().DebugString())),
                            name()));
      auto v = var.flat<T>();
      auto u = value.flat<T>();
      if (kAdd) {
        v += u;
      } else {
        v -= u;
      }
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

  bool IsExpensive() const override { return false; }
};

#define SF_REGISTER_DENSE_UPDATE(T)                                \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DenseUpdateOp<T, true>);                                     \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DenseUpdateOp<T, false>);
SF_CALL_NUMBER_TYPES(SF_REGISTER_DENSE_UPDATE)
#undef SF_REGISTER_DENSE_UPDATE

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireRefInput(ctx, 0));
    const bool initialized =
        ctx->mutable_input(0, /*lock_held=*/false).IsInitialized();
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_CPU),
                        IsVariableInitializedOp);

}  // namespace
}  // namespace stepflow
