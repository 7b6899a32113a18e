// TensorArray kernels: TensorArrayV3 makes a TensorArray (tensor_array.h)
// in the step's container; Write/Read/Scatter/Gather/Split/Concat/Size/
// Close reach it through its handle; TensorArrayGradV3 and
// TensorArrayGradWithShape make (or find) the gradient array
// "<forward name>@<source>" beside it.
//
// Every op but TensorArrayV3 and Close takes a float "flow" input that only
// orders the ops; ops that change the array pass it through as flow_out.
// Values are shared with the array, not copied, except the slices Scatter
// and Split cut from their input.
//
// Errors: InvalidArgument naming the node for a non-scalar size or index,
// a negative size, a dtype other than the array's, shapes Gather/Concat
// cannot stack, and the array's own errors (tensor_array.h); NotFound for a
// handle whose array does not exist in this step; Unimplemented for a
// Gather/Concat of nothing with an element shape not fully known.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/refcount.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/element_copy.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/step_resource.h"
#include "runtime/kernels/tensor_array.h"

namespace stepflow {
namespace {

absl::Status LookupTensorArray(OpKernelContext* ctx, TensorArray** array) {
  return LookupStepResource<TensorArray>(ctx, 0, kTensorArrayTypeName, array);
}

absl::Status RequireArrayDtype(OpKernelContext* ctx, const TensorArray& array,
                               DataType dtype, const char* verb) {
  if (dtype == array.dtype()) return absl::OkStatus();
  return NodeInvalidArgument(ctx, "TensorArray dtype is ",
                             DataTypeString(array.dtype()), " but Op ", verb,
                             " dtype ", DataTypeString(dtype), ".");
}

absl::Status ScalarIndex(OpKernelContext* ctx, int input, int32_t* index) {
  const Tensor& t = ctx->input(input);
  if (t.dims() != 0) {
    return NodeInvalidArgument(ctx,
                               "TensorArray index must be scalar, but had "
                               "shape: ",
                               t.shape().DebugString());
  }
  *index = t.scalar<int32_t>();
  return absl::OkStatus();
}

absl::Status IndexVector(OpKernelContext* ctx, int input,
                         std::vector<int32_t>* out) {
  const Tensor& t = ctx->input(input);
  if (t.dims() != 1) {
    return NodeInvalidArgument(
        ctx, "Expected indices to be a vector, but received shape: ",
        t.shape().DebugString());
  }
  auto v = t.vec<int32_t>();
  out->assign(v.data(), v.data() + v.size());
  return absl::OkStatus();
}

// Rows [offset, offset + rows) of `value` (rows of `row_elems` elements) as
// a new tensor of `shape`.
absl::Status SliceRows(OpKernelContext* ctx, const Tensor& value,
                       int64_t offset, int64_t rows, int64_t row_elems,
                       const TensorShape& shape, Tensor* out) {
  absl::Status s = ctx->allocate_temp(value.dtype(), shape, out);
  if (!s.ok()) return s;
  if (!CopyElements(value, offset * row_elems, out, 0, rows * row_elems)) {
    return NodeInvalidArgument(ctx, "TensorArray cannot hold dtype ",
                               DataTypeString(value.dtype()));
  }
  return absl::OkStatus();
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &options_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &options_.element_shape));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes",
                                     &options_.identical_element_shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &base_name_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, size.dims() == 0,
                NodeInvalidArgument(
                    ctx, "TensorArray size must be scalar, but had shape: ",
                    size.shape().DebugString()));
    TensorArray::Options options = options_;
    options.size = size.scalar<int32_t>();
    OP_REQUIRES(ctx, options.size >= 0,
                NodeInvalidArgument(ctx, "Size should be >= 0."));
    std::string name;
    OP_REQUIRES_OK(ctx, NewStepResourceName(ctx, base_name_, &name));
    Tensor handle;
    OP_REQUIRES_OK(ctx,
                   CreateStepResource(ctx, name, kTensorArrayTypeName,
                                      new TensorArray(name, options), &handle));
    ctx->set_output(0, handle);
    ctx->set_output(1, Tensor::Scalar<float>(0.0f));
  }

 private:
  TensorArray::Options options_;
  std::string base_name_;
};

class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("source", &source_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorArray* forward = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &forward));
    ScopedUnref unref(forward);
    // Gradients fix the forward array's size.
    forward->DisableDynamicSize();
    int32_t size = 0, marked_size = 0;
    OP_REQUIRES_OK(ctx, forward->Size(&size));
    OP_REQUIRES_OK(ctx, forward->MarkedSize(&marked_size));
    OP_REQUIRES(
        ctx, forward->GradientsAllowed(),
        NodeInvalidArgument(
            ctx, "Unable to create a gradients TensorArray for ",
            forward->name(),
            ".  Perhaps you used the multiple_writes_aggregate flag on a "
            "previous write?  Gradient calculation is impossible when "
            "multiple writes are performed to the same index."));
    TensorShape prepend;
    PartialTensorShape element_shape;
    if (ctx->num_inputs() > 2) {
      const Tensor& t = ctx->input(2);
      OP_REQUIRES(
          ctx, t.dims() == 1,
          NodeInvalidArgument(ctx,
                              "Expected shape_to_prepend to be a vector, but "
                              "received shape: ",
                              t.shape().DebugString()));
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const int32_t d = t.vec<int32_t>()(i);
        OP_REQUIRES(ctx, d >= 0,
                    NodeInvalidArgument(ctx,
                                        "shape_to_prepend has a negative "
                                        "dimension ",
                                        d));
        prepend.AddDim(d);
      }
    } else {
      element_shape = forward->ElemShape();
    }
    const std::string name = absl::StrCat(forward->name(), "@", source_);
    Tensor handle;
    OP_REQUIRES_OK(
        ctx, MakeStepResourceHandle(ctx, name, kTensorArrayTypeName, &handle));
    TensorArray::Options options;
    options.dtype = forward->dtype();
    options.size = size;
    options.element_shape = element_shape;
    options.identical_element_shapes = forward->HasIdenticalElementShapes();
    options.multiple_writes_aggregate = true;
    options.is_grad = true;
    options.marked_size = marked_size;
    options.clear_after_read = true;
    TensorArray* grad = nullptr;
    OP_REQUIRES_OK(ctx, ctx->resource_manager()->LookupOrCreate<TensorArray>(
                            ctx->step_container()->name(), name, &grad,
                            [&](TensorArray** made) {
                              *made = new TensorArray(name, options);
                              absl::Status s =
                                  (*made)->CopyShapesFrom(forward, prepend);
                              if (!s.ok()) (*made)->Unref();
                              return s;
                            }));
    grad->Unref();
    ctx->set_output(0, handle);
    ctx->set_output(1, ctx->input(1));
  }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx, 1, &index));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, value.dtype(),
                                          "is trying to write"));
    OP_REQUIRES_OK(ctx, array->Write(ctx, index, value));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx, 1, &index));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, dtype_, "requested"));
    Tensor value;
    OP_REQUIRES_OK(ctx, array->Read(ctx, index, &value));
    ctx->set_output(0, value);
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// Stacks `values` (equal shapes) along a new first dimension.
void StackValues(OpKernelContext* ctx, const std::vector<Tensor>& values,
                 const std::vector<int32_t>& indices) {
  const TensorShape& first = values[0].shape();
  TensorShape shape = first;
  shape.InsertDim(0, static_cast<int64_t>(values.size()));
  for (size_t i = 1; i < values.size(); ++i) {
    OP_REQUIRES(
        ctx, values[i].shape() == first,
        NodeInvalidArgument(ctx,
                            "TensorArray has inconsistent shapes.  Index 0 has "
                            "shape: ",
                            first.DebugString(), " but index ", indices[i],
                            " has shape: ", values[i].shape().DebugString()));
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  const int64_t n = first.num_elements();
  for (size_t i = 0; i < values.size(); ++i) {
    CopyElements(values[i], 0, out, static_cast<int64_t>(i) * n, n);
  }
}

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, dtype_, "requested"));
    OP_REQUIRES_OK(ctx, AttachDef(array->SetElemShape(element_shape_), name()));
    std::vector<int32_t> indices;
    OP_REQUIRES_OK(ctx, IndexVector(ctx, 1, &indices));
    if (indices.empty()) {
      const PartialTensorShape elem = array->ElemShape();
      OP_REQUIRES(
          ctx, elem.IsFullyDefined(),
          NodeError(absl::StatusCode::kUnimplemented, *this,
                    "TensorArray has size zero, but element shape ",
                    elem.DebugString(),
                    " is not fully defined. Currently only static shapes are "
                    "supported when packing zero-size TensorArrays."));
      TensorShape shape = ToTensorShape(elem);
      shape.InsertDim(0, 0);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, array->ReadMany(ctx, indices, &values));
    OP_REQUIRES(
        ctx, element_shape_.IsCompatibleWith(values[0].shape()),
        NodeInvalidArgument(ctx, "TensorArray was passed element_shape ",
                            element_shape_.DebugString(),
                            " which does not match the Tensor at index 0: ",
                            values[0].shape().DebugString()));
    StackValues(ctx, values, indices);
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape element_shape_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, value.dtype(),
                                          "is trying to write"));
    OP_REQUIRES(ctx, value.dims() > 0,
                NodeInvalidArgument(
                    ctx, "Input value for unpack must be at least a vector"));
    std::vector<int32_t> indices;
    OP_REQUIRES_OK(ctx, IndexVector(ctx, 1, &indices));
    const int64_t rows = value.dim_size(0);
    OP_REQUIRES(ctx, static_cast<int64_t>(indices.size()) == rows,
                NodeInvalidArgument(
                    ctx, "Expected len(indices) == values.shape[0], but saw: ",
                    indices.size(), " vs. ", rows));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    if (!indices.empty()) {
      const int32_t max_index =
          *std::max_element(indices.begin(), indices.end());
      if (array->HasDynamicSize() && size < max_index + 1) {
        size = max_index + 1;
      }
      OP_REQUIRES(
          ctx, max_index < size,
          NodeInvalidArgument(ctx, "Max scatter index must be < array size (",
                              max_index, " vs. ", size, ")"));
    }
    TensorShape elem = value.shape();
    elem.RemoveDim(0);
    const int64_t n = elem.num_elements();
    std::vector<Tensor> pieces(indices.size());
    for (int64_t i = 0; i < rows; ++i) {
      OP_REQUIRES_OK(ctx, SliceRows(ctx, value, i, 1, n, elem, &pieces[i]));
    }
    OP_REQUIRES_OK(ctx, array->WriteMany(ctx, indices, pieces));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape_except0", &except0_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, dtype_, "requested"));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->PackOrConcatSize(&size));
    Tensor* lengths = nullptr;
    if (size <= 0) {
      OP_REQUIRES(
          ctx, except0_.IsFullyDefined(),
          NodeError(absl::StatusCode::kUnimplemented, *this,
                    "TensorArray has size zero, but element_shape_except0 ",
                    except0_.DebugString(),
                    " is not fully defined. Currently only static shapes are "
                    "supported when concatenating zero-size TensorArrays."));
      TensorShape shape = ToTensorShape(except0_);
      shape.InsertDim(0, 0);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &lengths));
      return;
    }
    std::vector<int32_t> indices(size);
    std::iota(indices.begin(), indices.end(), 0);
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, array->ReadMany(ctx, indices, &values));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(size)}),
                                  &lengths));
    TensorShape out_shape, except0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, s.dims() >= 1,
                  NodeInvalidArgument(
                      ctx, "Concat saw a scalar shape at index ", i,
                      " but requires at least vectors.  Did you mean to call "
                      "stack instead?"));
      lengths->vec<int64_t>()(i) = s.dim_size(0);
      TensorShape rest = s;
      rest.RemoveDim(0);
      if (i == 0) {
        out_shape = s;
        except0 = rest;
        OP_REQUIRES(ctx, except0_.IsCompatibleWith(rest),
                    NodeInvalidArgument(
                        ctx, "TensorArray was passed element_shape_except0 ",
                        except0_.DebugString(),
                        " but index 0 has (excepting dimension 0) shape: ",
                        rest.DebugString(), " which does not match."));
      } else {
        OP_REQUIRES(
            ctx, rest == except0,
            NodeInvalidArgument(
                ctx,
                "TensorArray has inconsistent shapes.  Index 0 has "
                "(excepting dimension 0) shape: ",
                except0.DebugString(), " but index ", i,
                " has (excepting dimension 0) shape: ", rest.DebugString()));
        out_shape.set_dim(0, out_shape.dim_size(0) + s.dim_size(0));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t at = 0;
    for (const Tensor& v : values) {
      CopyElements(v, 0, out, at, v.NumElements());
      at += v.NumElements();
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape except0_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                NodeInvalidArgument(
                    ctx, "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    OP_REQUIRES_OK(ctx, RequireArrayDtype(ctx, *array, value.dtype(),
                                          "is trying to write"));
    const int64_t num = lengths.NumElements();
    auto len = lengths.vec<int64_t>();
    int64_t total = 0;
    for (int64_t i = 0; i < num; ++i) {
      OP_REQUIRES(ctx, len(i) >= 0,
                  NodeInvalidArgument(ctx, "lengths must be non-negative, got ",
                                      len(i), " at index ", i));
      total += len(i);
    }
    OP_REQUIRES(
        ctx, value.dims() >= 1,
        NodeInvalidArgument(ctx,
                            "Expected value to be at least a vector, but "
                            "received shape: ",
                            value.shape().DebugString()));
    OP_REQUIRES(ctx, total == value.dim_size(0),
                NodeInvalidArgument(ctx,
                                    "Expected sum of lengths to be equal to "
                                    "values.shape[0], but sum of lengths is ",
                                    total, " and value's shape is: ",
                                    value.shape().DebugString()));
    const int64_t row = total == 0 ? 0 : value.NumElements() / total;
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    if (array->HasDynamicSize() && size < num) size = static_cast<int32_t>(num);
    OP_REQUIRES(ctx, size == num,
                NodeInvalidArgument(
                    ctx,
                    "TensorArray's size is not equal to the size of "
                    "lengths (",
                    size, " vs. ", num,
                    "), and the TensorArray is not marked as dynamically "
                    "resizeable"));
    OP_REQUIRES_OK(ctx, array->SetMarkedSize(size));
    std::vector<Tensor> pieces(num);
    std::vector<int32_t> indices(num);
    int64_t offset = 0;
    for (int64_t i = 0; i < num; ++i) {
      TensorShape shape = value.shape();
      shape.set_dim(0, len(i));
      OP_REQUIRES_OK(
          ctx, SliceRows(ctx, value, offset, len(i), row, shape, &pieces[i]));
      offset += len(i);
      indices[i] = static_cast<int32_t>(i);
    }
    OP_REQUIRES_OK(ctx, array->WriteMany(ctx, indices, pieces));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    ScopedUnref unref(array);
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    ctx->set_output(0, Tensor::Scalar<int32_t>(size));
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, LookupTensorArray(ctx, &array));
    array->ClearAndMarkClosed();
    array->Unref();
  }
};

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU),
                        TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradV3").Device(DEVICE_CPU),
                        TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradWithShape").Device(DEVICE_CPU),
                        TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace
}  // namespace stepflow
