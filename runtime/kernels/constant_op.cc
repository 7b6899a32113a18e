// Const (the `value` attr, decoded once), Placeholder (always fails: it
// must be fed), Fill, ZerosLike and OnesLike.
#include <string>
#include <type_traits>
#include <vector>

#include "proto/tensor.pb.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    TensorProto proto;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    DataType dtype = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    // From the device's allocator: a Const whose shape declares more than
    // the device's budget is ResourceExhausted, however few bytes its
    // proto has.
    OP_REQUIRES_OK(ctx, AttachDef(TensorFromProto(ctx->device()->GetAllocator(),
                                                  proto, &tensor_),
                                  name()));
    OP_REQUIRES(
        ctx, tensor_.dtype() == dtype,
        NodeInvalidArgument(*this, "Type mismatch between value (",
                            DataTypeString(tensor_.dtype()), ") and dtype (",
                            DataTypeString(dtype), ")"));
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor tensor_;
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    if (ctx->HasAttr("shape")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::string msg =
        absl::StrCat("You must feed a value for placeholder tensor '", name(),
                     "' with dtype ", DataTypeString(dtype_));
    if (!shape_.unknown_rank()) {
      absl::StrAppend(&msg, " and shape ", shape_.DebugString());
    }
    ctx->SetStatus(NodeInvalidArgument(ctx, msg));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape shape_;
};

REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);

// Fill(dims, value): a tensor of shape `dims` filled with scalar `value`.
class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, dims_t.dims() == 1,
                NodeInvalidArgument(ctx, "dims must be a vector, got shape ",
                                    dims_t.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() == 0,
                NodeInvalidArgument(ctx, "value must be a scalar, got shape ",
                                    value.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, dims_t, &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, value.dtype(), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    const bool ok = DispatchByElementSize(value.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U v = *value.base<U>();
      U* o = out->base<U>();
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "Fill does not support dtype ",
                                    DataTypeString(value.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Fill").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), FillOp);

// ZerosLike: allocate_output already zero-fills (empty strings for
// DT_STRING, as TensorFlow gives).
class ZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    ZerosLikeOp);

class OnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    bool ok = false;
    SF_SWITCH_ALL_TYPES(x.dtype(), ok = FillOnes<T>(out->base<T>(), n),
                        ok = false);
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "OnesLike does not support ",
                                    DataTypeString(x.dtype())));
  }

 private:
  template <typename T>
  static bool FillOnes(T* o, int64_t n) {
    if constexpr (std::is_same<T, std::string>::value) {
      return false;
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(1);
      return true;
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("OnesLike").Device(DEVICE_CPU).TypeConstraint("T", PodTypes()),
    OnesLikeOp);

}  // namespace
}  // namespace stepflow
