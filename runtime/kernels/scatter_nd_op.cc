// ScatterNd(indices, updates, shape): a tensor of `shape`, zero except
// where index rows point, which receive the sum of their updates (bool: or;
// string: concatenation). TensorScatter{Update,Add,Sub,Max,Min}(tensor,
// indices, updates): a copy of `tensor` with each update applied to its
// row's slice, in order. updates has shape indices.shape[:-1] +
// shape[depth:]. Errors (InvalidArgument naming the node): a scalar output
// or indices, indices/updates and shape that do not line up, updates for an
// empty output, an index row out of range.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nd_index_util.h"

namespace stepflow {
namespace {

enum class ScatterKind { kAdd, kUpdate, kSub, kMax, kMin };

template <typename T>
void Apply(ScatterKind kind, T& dst, const T& src) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (kind == ScatterKind::kAdd) {
      dst += src;
    } else {
      dst = src;
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    dst = kind == ScatterKind::kAdd ? (dst || src) : src;
  } else {
    switch (kind) {
      case ScatterKind::kAdd:
        dst = static_cast<T>(static_cast<ArithType<T>>(dst) +
                             static_cast<ArithType<T>>(src));
        break;
      case ScatterKind::kSub:
        dst = static_cast<T>(static_cast<ArithType<T>>(dst) -
                             static_cast<ArithType<T>>(src));
        break;
      case ScatterKind::kUpdate:
        dst = src;
        break;
      case ScatterKind::kMax:
        if constexpr (!IsComplex<T>::value) dst = src > dst ? src : dst;
        break;
      case ScatterKind::kMin:
        if constexpr (!IsComplex<T>::value) dst = src < dst ? src : dst;
        break;
    }
  }
}

ScatterKind KindOf(const std::string& op) {
  if (op == "TensorScatterUpdate") return ScatterKind::kUpdate;
  if (op == "TensorScatterSub") return ScatterKind::kSub;
  if (op == "TensorScatterMax") return ScatterKind::kMax;
  if (op == "TensorScatterMin") return ScatterKind::kMin;
  return ScatterKind::kAdd;
}

template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        kind_(KindOf(type_string())),
        from_shape_(type_string() == "ScatterNd") {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(from_shape_ ? 0 : 1);
    const Tensor& updates = ctx->input(from_shape_ ? 1 : 2);
    TensorShape shape;
    int64_t input_size = 0;  // What "empty output" is judged by.
    if (from_shape_) {
      const Tensor& shape_t = ctx->input(2);
      OP_REQUIRES(ctx, shape_t.dims() == 1,
                  NodeInvalidArgument(ctx, "Shape must be a 1-D tensor. Got: ",
                                      shape_t.shape().DebugString()));
      std::vector<int64_t> dims;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, shape_t, &dims));
      OP_REQUIRES_OK(ctx,
                     MakeOutputShape(*this, dims, updates.dtype(), &shape));
      input_size = shape_t.NumElements();
    } else {
      shape = ctx->input(0).shape();
      input_size = shape.num_elements();
    }
    OP_REQUIRES(ctx, indices.dims() >= 1,
                NodeInvalidArgument(ctx,
                                    "Indices shape must have rank at least "
                                    "one. Found:",
                                    indices.shape().DebugString()));
    OP_REQUIRES(ctx, updates.dims() >= 1 || from_shape_,
                NodeInvalidArgument(ctx,
                                    "Updates shape must have rank at least "
                                    "one. Found:",
                                    updates.shape().DebugString()));
    OP_REQUIRES(ctx, shape.dims() >= 1,
                NodeInvalidArgument(ctx,
                                    "Output must be at least 1-D, got "
                                    "shape: ",
                                    shape.DebugString()));
    const int64_t n_idx = indices.NumElements(), n_upd = updates.NumElements();
    OP_REQUIRES(ctx,
                (n_idx == 0 && n_upd == 0) ||
                    (input_size != 0 && n_idx != 0 && n_upd != 0),
                NodeInvalidArgument(ctx,
                                    "Indices and updates specified for empty "
                                    "output shape"));
    const int outer = indices.dims() - 1;
    const int64_t depth = indices.dim_size(outer);
    bool lined_up = updates.dims() >= outer && depth <= shape.dims() &&
                    updates.dims() - outer == shape.dims() - depth;
    for (int d = 0; lined_up && d < outer; ++d) {
      lined_up = indices.dim_size(d) == updates.dim_size(d);
    }
    for (int d = 0; lined_up && d + outer < updates.dims(); ++d) {
      lined_up = updates.dim_size(d + outer) ==
                 shape.dim_size(static_cast<int>(depth) + d);
    }
    OP_REQUIRES(
        ctx, lined_up,
        NodeInvalidArgument(
            ctx, "Dimensions of indices[shape=", indices.shape().DebugString(),
            "] and updates[shape=", updates.shape().DebugString(),
            "] do not match the output shape ", shape.DebugString()));
    NdIndexRows rows;
    OP_REQUIRES_OK(ctx, ReadNdIndexRows(*this, indices, shape, &rows));
    OP_REQUIRES(ctx, rows.first_bad < 0,
                NodeInvalidArgument(
                    ctx, "indices[", rows.first_bad,
                    "] = ", NdIndexRowString(indices, rows.first_bad),
                    " does not index into shape ", shape.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* o = out->base<T>();
    if (from_shape_) {
      std::fill(o, o + shape.num_elements(), T());
    } else {
      const T* in = ctx->input(0).base<T>();
      std::copy(in, in + shape.num_elements(), o);
    }
    const T* u = updates.base<T>();
    for (size_t r = 0; r < rows.offsets.size(); ++r) {
      T* dst = o + rows.offsets[r];
      for (int64_t j = 0; j < rows.slice; ++j) Apply(kind_, dst[j], u[j]);
      u += rows.slice;
    }
  }

 private:
  const ScatterKind kind_;
  const bool from_shape_;
};

#define REGISTER_ONE(OP, T)                                  \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(OP)                                               \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ScatterNdOp<T>);
#define REGISTER_ANY(T)        \
  REGISTER_ONE("ScatterNd", T) \
  REGISTER_ONE("TensorScatterUpdate", T)
#define REGISTER_NUMBER(T)            \
  REGISTER_ONE("TensorScatterAdd", T) \
  REGISTER_ONE("TensorScatterSub", T)
#define REGISTER_REAL(T)              \
  REGISTER_ONE("TensorScatterMax", T) \
  REGISTER_ONE("TensorScatterMin", T)
SF_CALL_ALL_TYPES(REGISTER_ANY)
SF_CALL_NUMBER_TYPES(REGISTER_NUMBER)
SF_CALL_REAL_NUMBER_TYPES(REGISTER_REAL)
#undef REGISTER_REAL
#undef REGISTER_NUMBER
#undef REGISTER_ANY
#undef REGISTER_ONE

}  // namespace
}  // namespace stepflow
