// TF_DataType and TF_Tensor.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

// TF_DataType must mirror DataType value for value.
#define SF_CHECK_TYPE(tf, dt) \
  static_assert(static_cast<int>(tf) == static_cast<int>(stepflow::dt), #tf)
SF_CHECK_TYPE(TF_FLOAT, DT_FLOAT);
SF_CHECK_TYPE(TF_DOUBLE, DT_DOUBLE);
SF_CHECK_TYPE(TF_INT32, DT_INT32);
SF_CHECK_TYPE(TF_UINT8, DT_UINT8);
SF_CHECK_TYPE(TF_INT16, DT_INT16);
SF_CHECK_TYPE(TF_INT8, DT_INT8);
SF_CHECK_TYPE(TF_STRING, DT_STRING);
SF_CHECK_TYPE(TF_COMPLEX64, DT_COMPLEX64);
SF_CHECK_TYPE(TF_INT64, DT_INT64);
SF_CHECK_TYPE(TF_BOOL, DT_BOOL);
SF_CHECK_TYPE(TF_QINT8, DT_QINT8);
SF_CHECK_TYPE(TF_QUINT8, DT_QUINT8);
SF_CHECK_TYPE(TF_QINT32, DT_QINT32);
SF_CHECK_TYPE(TF_BFLOAT16, DT_BFLOAT16);
SF_CHECK_TYPE(TF_QINT16, DT_QINT16);
SF_CHECK_TYPE(TF_QUINT16, DT_QUINT16);
SF_CHECK_TYPE(TF_UINT16, DT_UINT16);
SF_CHECK_TYPE(TF_COMPLEX128, DT_COMPLEX128);
SF_CHECK_TYPE(TF_HALF, DT_HALF);
SF_CHECK_TYPE(TF_RESOURCE, DT_RESOURCE);
SF_CHECK_TYPE(TF_VARIANT, DT_VARIANT);
SF_CHECK_TYPE(TF_UINT32, DT_UINT32);
SF_CHECK_TYPE(TF_UINT64, DT_UINT64);
#undef SF_CHECK_TYPE

namespace stepflow {
namespace {

// A valid non-ref element type.
bool IsValidType(TF_DataType dtype) {
  const int v = static_cast<int>(dtype);
  return DataType_IsValid(v) && v != DT_INVALID &&
         !IsRefType(static_cast<DataType>(v));
}

// Types a Tensor stores as raw bytes (what may cross the C API by value).
bool IsFixedSize(TF_DataType dtype) {
  const DataType dt = static_cast<DataType>(dtype);
  return IsValidType(dtype) && DataTypeIsSupported(dt) &&
         DataTypeIsMemcpyable(dt) && DataTypeSize(dt) > 0;
}

bool BuildShape(const int64_t* dims, int num_dims, TensorShape* shape) {
  if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) return false;
  return TensorShape::BuildTensorShape(
             absl::Span<const int64_t>(dims, static_cast<size_t>(num_dims)),
             shape)
      .ok();
}

void FreeAligned(void* data, size_t, void*) { std::free(data); }

}  // namespace

namespace c_api {

absl::Status TensorFromC(const TF_Tensor& t, Tensor* out) {
  if (t.backing.IsInitialized()) {
    *out = t.backing;
    return absl::OkStatus();
  }
  const DataType dt = static_cast<DataType>(t.dtype);
  if (!IsFixedSize(t.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot feed a tensor of type ", DataTypeString(dt),
                     " through the C API (only fixed-size element types)"));
  }
  TensorShape shape;
  if (!BuildShape(t.dims.data(), static_cast<int>(t.dims.size()), &shape)) {
    return absl::InvalidArgumentError("tensor has an invalid shape");
  }
  Tensor result(dt, shape);
  if (result.TotalBytes() != t.len) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor of shape ", shape.DebugString(), " and type ",
                     DataTypeString(dt), " needs ", result.TotalBytes(),
                     " bytes but has ", t.len));
  }
  if (t.len > 0) std::memcpy(result.raw_data(), t.data, t.len);
  *out = std::move(result);
  return absl::OkStatus();
}

absl::Status TensorToC(const Tensor& t, TF_Tensor** out) {
  const TF_DataType dtype = static_cast<TF_DataType>(t.dtype());
  if (!IsFixedSize(dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot fetch a tensor of type ", DataTypeString(t.dtype()),
        " through the C API (only fixed-size element types)"));
  }
  auto* result = new TF_Tensor;
  result->dtype = dtype;
  result->dims.assign(t.shape().dim_sizes().begin(),
                      t.shape().dim_sizes().end());
  result->backing = t;
  *out = result;
  return absl::OkStatus();
}

}  // namespace c_api
}  // namespace stepflow

TF_Tensor::~TF_Tensor() {
  if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
}

extern "C" {

size_t TF_DataTypeSize(TF_DataType dt) {
  if (!stepflow::IsFixedSize(dt)) return 0;
  return static_cast<size_t>(
      stepflow::DataTypeSize(static_cast<stepflow::DataType>(dt)));
}

TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims,
                        void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg) {
  stepflow::TensorShape shape;
  bool ok = stepflow::IsValidType(dtype) &&
            stepflow::BuildShape(dims, num_dims, &shape);
  if (ok && stepflow::IsFixedSize(dtype)) {
    ok = static_cast<size_t>(shape.num_elements()) * TF_DataTypeSize(dtype) ==
         len;
  }
  if (!ok) {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    return nullptr;
  }
  auto* t = new TF_Tensor;
  t->dtype = dtype;
  t->dims.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
  t->data = data;
  t->len = len;
  t->deallocator = deallocator;
  t->deallocator_arg = deallocator_arg;
  return t;
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len) {
  stepflow::TensorShape shape;
  if (!stepflow::IsValidType(dtype) ||
      !stepflow::BuildShape(dims, num_dims, &shape)) {
    return nullptr;
  }
  auto* t = new TF_Tensor;
  t->dtype = dtype;
  t->dims.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
  if (stepflow::IsFixedSize(dtype)) {
    if (static_cast<size_t>(shape.num_elements()) * TF_DataTypeSize(dtype) !=
        len) {
      delete t;
      return nullptr;
    }
    t->backing =
        stepflow::Tensor(static_cast<stepflow::DataType>(dtype), shape);
    return t;
  }
  // Other types: raw zeroed bytes, 64-byte aligned like Tensor storage.
  const size_t rounded = (len + 63) / 64 * 64;
  void* bytes = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (bytes == nullptr) {
    delete t;
    return nullptr;
  }
  std::memset(bytes, 0, rounded == 0 ? 64 : rounded);
  t->data = bytes;
  t->len = len;
  t->deallocator = stepflow::FreeAligned;
  return t;
}

void TF_DeleteTensor(TF_Tensor* t) { delete t; }

TF_DataType TF_TensorType(const TF_Tensor* t) { return t->dtype; }

int TF_NumDims(const TF_Tensor* t) { return static_cast<int>(t->dims.size()); }

int64_t TF_Dim(const TF_Tensor* t, int dim_index) {
  if (dim_index < 0 || dim_index >= static_cast<int>(t->dims.size())) return -1;
  return t->dims[dim_index];
}

int64_t TF_TensorElementCount(const TF_Tensor* t) {
  int64_t n = 1;
  for (int64_t d : t->dims) n *= d;
  return n;
}

size_t TF_TensorByteSize(const TF_Tensor* t) {
  return t->backing.IsInitialized() ? t->backing.TotalBytes() : t->len;
}

void* TF_TensorData(const TF_Tensor* t) {
  return t->backing.IsInitialized() ? t->backing.raw_data() : t->data;
}

}  // extern "C"
