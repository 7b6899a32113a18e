// Stack kernels: StackV2 makes a stack of tensors in the step's container
// (what while-loop gradients save forward values in); StackPushV2 pushes
// (and outputs) a value, StackPopV2 pops one, StackCloseV2 empties the
// stack and refuses later pushes and pops.
//
// Values are shared, not copied. A max_size below zero means no limit.
// Errors: InvalidArgument naming the node for a non-scalar max_size, a
// value of another dtype, a push beyond max_size ("Stack[s_0] overflowed
// its max_size (2)"), a pop of an empty stack ("Stack[s_0] is empty when
// calling Pop().") and a use after close; Internal for a pop whose
// elem_type differs from the value's (TensorFlow's executor error); NotFound
// for a handle whose stack does not exist in this step.
// Thread-safety: a stack's operations are serialised by its mutex.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/refcount.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/step_resource.h"

namespace stepflow {
namespace {

constexpr char kStackTypeName[] = "stepflow::Stack";

class Stack : public ResourceBase {
 public:
  Stack(DataType elem_type, std::string name, int32_t max_size)
      : elem_type_(elem_type), name_(std::move(name)), max_size_(max_size) {}

  DataType elem_type() const { return elem_type_; }

  absl::Status Push(const Tensor& value) {
    absl::MutexLock l(&mu_);
    absl::Status s = CheckOpen();
    if (!s.ok()) return s;
    if (static_cast<int64_t>(values_.size()) >= max_size_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Stack[", name_, "] overflowed its max_size (", max_size_, ")"));
    }
    values_.push_back(value);
    return absl::OkStatus();
  }

  absl::Status Pop(Tensor* value) {
    absl::MutexLock l(&mu_);
    absl::Status s = CheckOpen();
    if (!s.ok()) return s;
    if (values_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Stack[", name_, "] is empty when calling Pop()."));
    }
    *value = std::move(values_.back());
    values_.pop_back();
    return absl::OkStatus();
  }

  void Close() {
    absl::MutexLock l(&mu_);
    values_.clear();
    closed_ = true;
  }

  std::string DebugString() const override {
    absl::MutexLock l(&mu_);
    return absl::StrCat("Stack[", name_, "] of ", DataTypeString(elem_type_),
                        " depth ", values_.size());
  }

 private:
  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!closed_) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("Stack[", name_, "] has already been closed."));
  }

  const DataType elem_type_;
  const std::string name_;
  const int32_t max_size_;
  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Tensor> values_ ABSL_GUARDED_BY(mu_);
};

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &elem_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("stack_name", &base_name_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_size = ctx->input(0);
    OP_REQUIRES(
        ctx, max_size.dims() == 0,
        NodeInvalidArgument(ctx, "Stack size must be a scalar, but had shape: ",
                            max_size.shape().DebugString()));
    int32_t size = max_size.scalar<int32_t>();
    if (size < 0) size = std::numeric_limits<int32_t>::max();
    std::string name;
    OP_REQUIRES_OK(ctx, NewStepResourceName(ctx, base_name_, &name));
    Tensor handle;
    OP_REQUIRES_OK(
        ctx, CreateStepResource(ctx, name, kStackTypeName,
                                new Stack(elem_type_, name, size), &handle));
    ctx->set_output(0, handle);
  }

 private:
  DataType elem_type_ = DT_INVALID;
  std::string base_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Stack* stack = nullptr;
    OP_REQUIRES_OK(ctx,
                   LookupStepResource<Stack>(ctx, 0, kStackTypeName, &stack));
    ScopedUnref unref(stack);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.dtype() == stack->elem_type(),
                NodeInvalidArgument(
                    ctx, "Must have type ", DataTypeString(stack->elem_type()),
                    " but got ", DataTypeString(value.dtype())));
    OP_REQUIRES_OK(ctx, AttachDef(stack->Push(value), name()));
    ctx->set_output(0, value);
  }
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Stack* stack = nullptr;
    OP_REQUIRES_OK(ctx,
                   LookupStepResource<Stack>(ctx, 0, kStackTypeName, &stack));
    ScopedUnref unref(stack);
    Tensor value;
    OP_REQUIRES_OK(ctx, AttachDef(stack->Pop(&value), name()));
    // A pop whose elem_type is not the stack's: the executor's type error.
    OP_REQUIRES(
        ctx, value.dtype() == ctx->expected_output_dtype(0),
        NodeInternal(ctx, "Output 0 of type ", DataTypeString(value.dtype()),
                     " does not match declared output type ",
                     DataTypeString(ctx->expected_output_dtype(0))));
    ctx->set_output(0, value);
  }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Stack* stack = nullptr;
    OP_REQUIRES_OK(ctx,
                   LookupStepResource<Stack>(ctx, 0, kStackTypeName, &stack));
    stack->Close();
    stack->Unref();
  }
};

REGISTER_KERNEL_BUILDER(Name("StackV2").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL_BUILDER(Name("StackPushV2").Device(DEVICE_CPU), StackPushOp);
REGISTER_KERNEL_BUILDER(Name("StackPopV2").Device(DEVICE_CPU), StackPopOp);
REGISTER_KERNEL_BUILDER(Name("StackCloseV2").Device(DEVICE_CPU), StackCloseOp);

}  // namespace
}  // namespace stepflow
