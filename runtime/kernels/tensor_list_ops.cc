// TensorList kernels: TensorListReserve, TensorListFromTensor,
// TensorListStack, TensorListGetItem, TensorListSetItem, TensorListLength,
// TensorListPushBack, TensorListPopBack, TensorListElementShape. A list is a
// scalar DT_VARIANT tensor holding a TensorList (tensor_list.h); ops that
// change a list output a new one.
//
// Element shapes come in as int32/int64 tensors: -1 (unknown rank) or a
// vector with -1 for unknown dims; they are merged with the list's own.
// Errors: InvalidArgument naming the node, with TensorFlow's messages, for
// a handle that is not a scalar list, an element dtype other than the
// op's, an index outside the list, a pop from an empty list, element shapes
// that disagree, and reading an unset element whose shape is unknown.
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/variant.h"
#include "runtime/kernels/element_copy.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_list.h"

namespace stepflow {
namespace {

// The partial shape an element_shape tensor describes.
absl::Status ShapeFromTensor(OpKernelContext* ctx, const Tensor& t,
                             PartialTensorShape* out) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return NodeInvalidArgument(
        ctx, "Expected an int32 or int64 shape tensor; found ",
        DataTypeString(t.dtype()));
  }
  std::vector<int64_t> dims;
  absl::Status s = IndexTensorToVector(ctx->op_kernel(), t, &dims);
  if (!s.ok()) return s;
  if (t.dims() == 0) {
    if (dims[0] == -1) {
      *out = PartialTensorShape();
      return absl::OkStatus();
    }
    return NodeInvalidArgument(ctx,
                               "The only valid scalar shape tensor is the "
                               "fully unknown shape specified as -1.");
  }
  if (t.dims() != 1) {
    return NodeInvalidArgument(ctx, "Shape must be at most rank 1 but is rank ",
                               t.dims());
  }
  for (int64_t d : dims) {
    if (d < -1) {
      return NodeInvalidArgument(ctx, "Dimension ", d,
                                 " must be >= -1 in an element shape");
    }
  }
  *out = PartialTensorShape(dims);
  return absl::OkStatus();
}

// The list held by input `index`.
absl::Status InputList(OpKernelContext* ctx, int index,
                       const TensorList** list) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_VARIANT || t.dims() != 0) {
    return NodeInvalidArgument(
        ctx, "Input list must be a scalar saw: ", t.shape().DebugString());
  }
  const Variant& v = t.scalar<Variant>();
  *list = v.get<TensorList>();
  if (*list == nullptr) {
    return NodeInvalidArgument(ctx, "Input handle is not a list. Saw: '",
                               v.DebugString(), "'");
  }
  return absl::OkStatus();
}

absl::Status RequireListDtype(OpKernelContext* ctx, const TensorList& list,
                              DataType dtype) {
  if (list.element_dtype == dtype) return absl::OkStatus();
  return NodeInvalidArgument(ctx, "Invalid data types; op elements ",
                             DataTypeString(dtype), " but list elements ",
                             DataTypeString(list.element_dtype));
}

// The element_shape input at `index` merged with the list's.
absl::Status ElementShapeFromInput(OpKernelContext* ctx, const TensorList& list,
                                   int index, PartialTensorShape* out) {
  PartialTensorShape given;
  absl::Status s = ShapeFromTensor(ctx, ctx->input(index), &given);
  if (!s.ok()) return s;
  s = MergePartialShapes(given, list.element_shape, out);
  return s.ok() ? s : AttachDef(s, ctx->op_kernel().name());
}

// `shape` narrowed by every set element's shape.
absl::Status MergeSetElements(OpKernelContext* ctx, const TensorList& list,
                              PartialTensorShape* shape) {
  for (const Tensor& t : list.tensors) {
    if (t.dtype() == DT_INVALID) continue;
    PartialTensorShape merged;
    absl::Status s = MergePartialShapes(
        *shape, PartialTensorShape(t.shape().dim_sizes()), &merged);
    if (!s.ok()) return AttachDef(s, ctx->op_kernel().name());
    *shape = merged;
  }
  return absl::OkStatus();
}

absl::Status Zeros(OpKernelContext* ctx, DataType dtype,
                   const TensorShape& shape, Tensor* out) {
  absl::Status s = ctx->allocate_temp(dtype, shape, out);
  if (!s.ok()) return s;
  if (out->NumElements() > 0 && !SetZeros(out)) {
    return NodeInvalidArgument(ctx, "Cannot make zeros of type ",
                               DataTypeString(dtype));
  }
  return absl::OkStatus();
}

void SetListOutput(OpKernelContext* ctx, int index,
                   std::shared_ptr<const TensorList> list) {
  Tensor out(DT_VARIANT, TensorShape({}));
  out.scalar<Variant>() = Variant(std::move(list));
  ctx->set_output(index, out);
}

class TensorListReserveOp : public OpKernel {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    auto list = std::make_shared<TensorList>();
    OP_REQUIRES_OK(ctx,
                   ShapeFromTensor(ctx, ctx->input(0), &list->element_shape));
    const Tensor& n = ctx->input(1);
    OP_REQUIRES(
        ctx, n.dims() == 0,
        NodeInvalidArgument(ctx,
                            "The num_elements to reserve must be a tensor size "
                            "1, but got ",
                            n.shape().DebugString()));
    const int32_t num = n.scalar<int32_t>();
    OP_REQUIRES(ctx, num >= 0,
                NodeInvalidArgument(ctx,
                                    "The num_elements to reserve must be a non "
                                    "negative number, but got ",
                                    num));
    list->element_dtype = dtype_;
    list->tensors.resize(num);
    SetListOutput(ctx, 0, std::move(list));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class TensorListFromTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    auto list = std::make_shared<TensorList>();
    OP_REQUIRES_OK(ctx,
                   ShapeFromTensor(ctx, ctx->input(1), &list->element_shape));
    OP_REQUIRES(ctx, t.dims() >= 1,
                NodeInvalidArgument(
                    ctx, "Tensor must be at least a vector, but saw shape: ",
                    t.shape().DebugString()));
    TensorShape elem = t.shape();
    elem.RemoveDim(0);
    OP_REQUIRES(
        ctx, list->element_shape.IsCompatibleWith(elem),
        NodeInvalidArgument(ctx, "Specified a list with shape ",
                            list->element_shape.DebugString(),
                            " from a tensor with shape ", elem.DebugString()));
    list->element_dtype = t.dtype();
    const int64_t n = elem.num_elements();
    list->tensors.resize(t.dim_size(0));
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      Tensor& piece = list->tensors[i];
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(t.dtype(), elem, &piece));
      CopyElements(t, i * n, &piece, 0, n);
    }
    SetListOutput(ctx, 0, std::move(list));
  }
};

class TensorListStackOp : public OpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_elements", &num_elements_));
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, RequireListDtype(ctx, *list, dtype_));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, num_elements_ == -1 || size == num_elements_,
                NodeInvalidArgument(
                    ctx, "Operation expected a list with ", num_elements_,
                    " elements but got a list with ", size, " elements."));
    PartialTensorShape partial;
    OP_REQUIRES_OK(ctx, ElementShapeFromInput(ctx, *list, 1, &partial));
    OP_REQUIRES(ctx, partial.IsFullyDefined() || size > 0,
                NodeInvalidArgument(ctx,
                                    "Tried to stack elements of an empty list "
                                    "with non-fully-defined element_shape: ",
                                    partial.DebugString()));
    if (!list->element_shape.IsFullyDefined()) {
      OP_REQUIRES_OK(ctx, MergeSetElements(ctx, *list, &partial));
    }
    OP_REQUIRES(ctx, partial.IsFullyDefined(),
                NodeInvalidArgument(
                    ctx,
                    "Tried to stack list which only contains uninitialized "
                    "tensors and has a non-fully-defined element_shape: ",
                    partial.DebugString()));
    const TensorShape elem = ToTensorShape(partial);
    TensorShape shape = elem;
    shape.InsertDim(0, size);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t n = elem.num_elements();
    Tensor zeros;
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (t.dtype() == DT_INVALID) {
        if (!zeros.IsInitialized()) {
          OP_REQUIRES_OK(ctx, Zeros(ctx, dtype_, elem, &zeros));
        }
        CopyElements(zeros, 0, out, i * n, n);
        continue;
      }
      OP_REQUIRES(ctx, t.shape() == elem,
                  NodeInvalidArgument(ctx, "Incompatible shapes during merge: ",
                                      elem.DebugString(), " vs. ",
                                      t.shape().DebugString()));
      CopyElements(t, 0, out, i * n, n);
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  int64_t num_elements_ = -1;
};

// The value of an unset element: zeros of the element shape, narrowed by
// the element_shape input at `shape_input` and (if still partial) the set
// elements.
void UnsetElement(OpKernelContext* ctx, const TensorList& list, int shape_input,
                  DataType dtype, int output) {
  PartialTensorShape partial;
  OP_REQUIRES_OK(ctx, ElementShapeFromInput(ctx, list, shape_input, &partial));
  if (!partial.IsFullyDefined()) {
    OP_REQUIRES_OK(ctx, MergeSetElements(ctx, list, &partial));
  }
  OP_REQUIRES(ctx, partial.IsFullyDefined(),
              NodeInvalidArgument(ctx,
                                  "Trying to read an uninitialized tensor but "
                                  "element_shape is not fully defined: ",
                                  partial.DebugString(),
                                  " and no list element is set."));
  Tensor zeros;
  OP_REQUIRES_OK(ctx, Zeros(ctx, dtype, ToTensorShape(partial), &zeros));
  ctx->set_output(output, zeros);
}

class TensorListGetItemOp : public OpKernel {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, RequireListDtype(ctx, *list, dtype_));
    const Tensor& index_t = ctx->input(1);
    OP_REQUIRES(ctx, index_t.dims() == 0,
                NodeInvalidArgument(ctx, "index must be a scalar, got shape ",
                                    index_t.shape().DebugString()));
    const int32_t index = index_t.scalar<int32_t>();
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, index >= 0 && index < size,
                NodeInvalidArgument(ctx, "Trying to access element ", index,
                                    " in a list with ", size, " elements."));
    const Tensor& t = list->tensors[index];
    if (t.dtype() != DT_INVALID) {
      ctx->set_output(0, t);
      return;
    }
    UnsetElement(ctx, *list, 2, dtype_, 0);
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class TensorListSetItemOp : public OpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("resize_if_index_out_of_bounds", &resize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, RequireListDtype(ctx, *list, dtype_));
    const Tensor& index_t = ctx->input(1);
    OP_REQUIRES(ctx, index_t.dims() == 0,
                NodeInvalidArgument(ctx, "index must be a scalar, got shape ",
                                    index_t.shape().DebugString()));
    const int32_t index = index_t.scalar<int32_t>();
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, index >= 0 && (resize_ || index < size),
                NodeInvalidArgument(ctx, "Trying to modify element ", index,
                                    " in a list with ", size, " elements."));
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, list->element_shape.IsCompatibleWith(value.shape()),
                NodeInvalidArgument(
                    ctx,
                    "Tried to set a tensor with incompatible shape at a list "
                    "index. Item element shape: ",
                    value.shape().DebugString(),
                    " list shape: ", list->element_shape.DebugString()));
    auto out = std::make_shared<TensorList>(*list);
    if (index >= size) out->tensors.resize(index + 1);
    out->tensors[index] = value;
    SetListOutput(ctx, 0, std::move(out));
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool resize_ = false;
};

class TensorListLengthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(list->tensors.size())));
  }
};

class TensorListPushBackOp : public OpKernel {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        NodeInvalidArgument(ctx, "Invalid data types; list elements ",
                            DataTypeString(dtype_), " but tried to append ",
                            DataTypeString(value.dtype())));
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    OP_REQUIRES(ctx, list->element_shape.IsCompatibleWith(value.shape()),
                NodeInvalidArgument(
                    ctx,
                    "Tried to append a tensor with incompatible shape to a "
                    "list. Op element shape: ",
                    value.shape().DebugString(),
                    " list shape: ", list->element_shape.DebugString()));
    OP_REQUIRES_OK(ctx, RequireListDtype(ctx, *list, dtype_));
    OP_REQUIRES(
        ctx,
        list->max_num_elements == -1 ||
            static_cast<int64_t>(list->tensors.size()) < list->max_num_elements,
        NodeInvalidArgument(ctx,
                            "Tried to push item into a full list list "
                            "size: ",
                            list->tensors.size(),
                            " max_num_elements: ", list->max_num_elements));
    auto out = std::make_shared<TensorList>(*list);
    out->tensors.push_back(value);
    SetListOutput(ctx, 0, std::move(out));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class TensorListPopBackOp : public OpKernel {
 public:
  explicit TensorListPopBackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    OP_REQUIRES_OK(ctx, RequireListDtype(ctx, *list, dtype_));
    OP_REQUIRES(ctx, !list->tensors.empty(),
                NodeInvalidArgument(ctx, "Trying to pop from an empty list."));
    const Tensor& last = list->tensors.back();
    if (last.dtype() != DT_INVALID) {
      ctx->set_output(1, last);
    } else {
      PartialTensorShape partial;
      OP_REQUIRES_OK(ctx, ElementShapeFromInput(ctx, *list, 1, &partial));
      OP_REQUIRES(
          ctx, partial.IsFullyDefined(),
          NodeInvalidArgument(ctx,
                              "Trying to read an uninitialized tensor but "
                              "element_shape is not fully defined.",
                              partial.DebugString()));
      Tensor zeros;
      OP_REQUIRES_OK(ctx, Zeros(ctx, dtype_, ToTensorShape(partial), &zeros));
      ctx->set_output(1, zeros);
    }
    auto out = std::make_shared<TensorList>(*list);
    out->tensors.pop_back();
    SetListOutput(ctx, 0, std::move(out));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class TensorListElementShapeOp : public OpKernel {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape_type", &shape_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, InputList(ctx, 0, &list));
    const PartialTensorShape& shape = list->element_shape;
    Tensor* out = nullptr;
    if (shape.unknown_rank()) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    } else {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(0, TensorShape({shape.dims()}), &out));
    }
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      const int64_t d = shape.unknown_rank() ? -1 : shape.dim_size(i);
      if (shape_type_ == DT_INT32) {
        out->flat<int32_t>()(i) = static_cast<int32_t>(d);
      } else {
        out->flat<int64_t>()(i) = d;
      }
    }
  }

 private:
  DataType shape_type_ = DT_INT32;
};

REGISTER_KERNEL_BUILDER(Name("TensorListReserve").Device(DEVICE_CPU),
                        TensorListReserveOp);
REGISTER_KERNEL_BUILDER(Name("TensorListFromTensor").Device(DEVICE_CPU),
                        TensorListFromTensorOp);
REGISTER_KERNEL_BUILDER(Name("TensorListStack").Device(DEVICE_CPU),
                        TensorListStackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGetItem").Device(DEVICE_CPU),
                        TensorListGetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSetItem").Device(DEVICE_CPU),
                        TensorListSetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListLength").Device(DEVICE_CPU),
                        TensorListLengthOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPushBack").Device(DEVICE_CPU),
                        TensorListPushBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPopBack").Device(DEVICE_CPU),
                        TensorListPopBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListElementShape").Device(DEVICE_CPU),
                        TensorListElementShapeOp);

}  // namespace
}  // namespace stepflow
