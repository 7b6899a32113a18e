// TF_DataType sizes, TF_Tensor and the conversions between TF_Tensors and
// runtime Tensors used by feeds, fetches and tensor-valued attributes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/allocator.h"
#include "runtime/framework/cpu_allocator.h"
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
static_assert(sizeof(TF_TString) == 24, "TF_TString is 24 bytes");

namespace stepflow {
namespace {

constexpr size_t kAlignment = Allocator::kAllocatorAlignment;

// A valid non-ref element type the runtime knows.
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

// Bytes a tensor of `dtype` with `elements` elements needs; 0 if unknown.
size_t RequiredBytes(TF_DataType dtype, int64_t elements) {
  if (dtype == TF_STRING) {
    return static_cast<size_t>(elements) * sizeof(TF_TString);
  }
  return static_cast<size_t>(elements) * TF_DataTypeSize(dtype);
}

// `len` holds a tensor of `dtype` and `shape`: at least the element bytes
// (one TF_TString per element for strings), as TensorFlow checks; extra
// bytes are ignored.
bool SizeMatches(TF_DataType dtype, const TensorShape& shape, size_t len) {
  return len >= RequiredBytes(dtype, shape.num_elements());
}

// Zeroed bytes aligned to kAlignment (never null for len 0).
void* AllocateAligned(size_t len) {
  const size_t rounded =
      len == 0 ? kAlignment : (len + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < len) return nullptr;  // Overflow.
  void* bytes = std::aligned_alloc(kAlignment, rounded);
  if (bytes != nullptr) std::memset(bytes, 0, rounded);
  return bytes;
}

TF_Tensor* NewCTensor(TF_DataType dtype, const TensorShape& shape,
                      std::shared_ptr<c_api::TensorStorage> storage) {
  auto* t = new TF_Tensor;
  t->dtype = dtype;
  t->dims.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
  t->storage = std::move(storage);
  return t;
}

// Storage over a runtime Tensor's buffer.
std::shared_ptr<c_api::TensorStorage> BackedStorage(const Tensor& t) {
  auto storage = std::make_shared<c_api::TensorStorage>();
  storage->backing = t;
  storage->data = t.raw_data();
  storage->len = t.TotalBytes();
  return storage;
}

// Storage of `len` zeroed bytes the C API owns; `tstrings` TF_TStrings at
// its start are freed with it. Null if memory is exhausted.
std::shared_ptr<c_api::TensorStorage> OwnedStorage(size_t len,
                                                   size_t tstrings) {
  void* bytes = AllocateAligned(len);
  if (bytes == nullptr) return nullptr;
  auto storage = std::make_shared<c_api::TensorStorage>();
  storage->owned = bytes;
  storage->data = bytes;
  storage->len = len;
  storage->owned_tstrings = tstrings;
  return storage;
}

}  // namespace

namespace c_api {

TensorStorage::~TensorStorage() {
  auto* strings = static_cast<TF_TString*>(data);
  for (size_t i = 0; i < owned_tstrings; ++i) TF_TString_Dealloc(&strings[i]);
  if (owned != nullptr) std::free(owned);
  if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
}

absl::Status TensorFromC(const TF_Tensor& t, Tensor* out) {
  const DataType dt = static_cast<DataType>(t.dtype);
  TensorShape shape;
  if (!BuildShape(t.dims.data(), static_cast<int>(t.dims.size()), &shape)) {
    return absl::InvalidArgumentError("tensor has an invalid shape");
  }
  const TensorStorage& storage = *t.storage;
  if (storage.backing.IsInitialized() && storage.backing.dtype() == dt &&
      storage.backing.NumElements() == shape.num_elements()) {
    return out->BitcastFrom(storage.backing, shape);
  }
  if (t.dtype != TF_STRING && !IsFixedSize(t.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot feed a tensor of type ", DataTypeString(dt),
        " through the C API (only fixed-size element types and strings)"));
  }
  const size_t needed = RequiredBytes(t.dtype, shape.num_elements());
  if (storage.len < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor of shape ", shape.DebugString(), " and type ",
        DataTypeString(dt), " needs ", needed, " bytes but has ", storage.len));
  }
  Tensor result;
  absl::Status s = Tensor::Allocate(cpu_allocator(), dt, shape, &result);
  if (!s.ok()) return s;
  if (t.dtype == TF_STRING) {
    const auto* src = static_cast<const TF_TString*>(storage.data);
    auto flat = result.flat<std::string>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      flat(i).assign(TF_TString_GetDataPointer(&src[i]),
                     TF_TString_GetSize(&src[i]));
    }
  } else if (needed > 0) {
    std::memcpy(result.raw_data(), storage.data, needed);
  }
  *out = std::move(result);
  return absl::OkStatus();
}

absl::Status TensorToC(const Tensor& t, TF_Tensor** out) {
  const TF_DataType dtype = static_cast<TF_DataType>(t.dtype());
  if (IsFixedSize(dtype)) {
    *out = NewCTensor(dtype, t.shape(), BackedStorage(t));
    return absl::OkStatus();
  }
  if (dtype != TF_STRING) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot fetch a tensor of type ", DataTypeString(t.dtype()),
        " through the C API (only fixed-size element types and strings)"));
  }
  const int64_t n = t.NumElements();
  auto storage = OwnedStorage(RequiredBytes(TF_STRING, n), n);
  if (storage == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("OOM when allocating ", n, " TF_TString elements"));
  }
  auto* strings = static_cast<TF_TString*>(storage->data);
  auto flat = t.flat<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    TF_TString_Copy(&strings[i], flat(i).data(), flat(i).size());
  }
  *out = NewCTensor(dtype, t.shape(), std::move(storage));
  return absl::OkStatus();
}

}  // namespace c_api
}  // namespace stepflow

extern "C" {

size_t TF_DataTypeSize(TF_DataType dt) {
  if (!stepflow::IsFixedSize(dt)) return 0;
  return static_cast<size_t>(
      stepflow::DataTypeSize(static_cast<stepflow::DataType>(dt)));
}

size_t TF_TensorDefaultAlignment(void) { return stepflow::kAlignment; }

TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims,
                        void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg) {
  stepflow::TensorShape shape;
  const bool ok = stepflow::IsValidType(dtype) &&
                  stepflow::BuildShape(dims, num_dims, &shape) &&
                  stepflow::SizeMatches(dtype, shape, len);
  if (!ok) {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    return nullptr;
  }
  const bool unaligned =
      reinterpret_cast<uintptr_t>(data) % stepflow::kAlignment != 0;
  if (unaligned && len > 0 && stepflow::IsFixedSize(dtype)) {
    // Copy into aligned storage and release the caller's bytes now.
    auto storage = stepflow::OwnedStorage(len, 0);
    if (storage != nullptr) std::memcpy(storage->data, data, len);
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    if (storage == nullptr) return nullptr;
    return stepflow::NewCTensor(dtype, shape, std::move(storage));
  }
  auto storage = std::make_shared<stepflow::c_api::TensorStorage>();
  storage->data = data;
  storage->len = len;
  storage->deallocator = deallocator;
  storage->deallocator_arg = deallocator_arg;
  return stepflow::NewCTensor(dtype, shape, std::move(storage));
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len) {
  stepflow::TensorShape shape;
  if (!stepflow::IsValidType(dtype) ||
      !stepflow::BuildShape(dims, num_dims, &shape) ||
      !stepflow::SizeMatches(dtype, shape, len)) {
    return nullptr;
  }
  if (stepflow::IsFixedSize(dtype)) {
    stepflow::Tensor t;
    if (!stepflow::Tensor::Allocate(stepflow::cpu_allocator(),
                                    static_cast<stepflow::DataType>(dtype),
                                    shape, &t)
             .ok()) {
      return nullptr;
    }
    return stepflow::NewCTensor(dtype, shape, stepflow::BackedStorage(t));
  }
  // Strings start as zeroed (empty) TF_TStrings the storage frees; other
  // types are raw zeroed bytes.
  const size_t tstrings = dtype == TF_STRING ? len / sizeof(TF_TString) : 0;
  auto storage = stepflow::OwnedStorage(len, tstrings);
  if (storage == nullptr) return nullptr;
  return stepflow::NewCTensor(dtype, shape, std::move(storage));
}

TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor) {
  if (tensor == nullptr || tensor->storage.use_count() != 1) return nullptr;
  const auto& storage = *tensor->storage;
  if (storage.backing.IsInitialized()) {
    return storage.backing.RefCountIsOne() ? tensor : nullptr;
  }
  return storage.owned != nullptr ? tensor : nullptr;
}

void TF_DeleteTensor(TF_Tensor* t) { delete t; }

TF_DataType TF_TensorType(const TF_Tensor* t) {
  return t == nullptr ? static_cast<TF_DataType>(0) : t->dtype;
}

void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims) {
  if (tensor == nullptr) return;
  stepflow::TensorShape shape;
  if (!stepflow::BuildShape(dims, num_dims, &shape) ||
      shape.num_elements() != TF_TensorElementCount(tensor)) {
    return;
  }
  tensor->dims.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
}

int TF_NumDims(const TF_Tensor* t) {
  return t == nullptr ? 0 : static_cast<int>(t->dims.size());
}

int64_t TF_Dim(const TF_Tensor* t, int dim_index) {
  if (t == nullptr || dim_index < 0 ||
      dim_index >= static_cast<int>(t->dims.size())) {
    return -1;
  }
  return t->dims[dim_index];
}

int64_t TF_TensorElementCount(const TF_Tensor* t) {
  if (t == nullptr) return 0;
  int64_t n = 1;
  for (int64_t d : t->dims) n *= d;
  return n;
}

size_t TF_TensorByteSize(const TF_Tensor* t) {
  if (t == nullptr) return 0;
  if (t->dtype == TF_STRING) {
    return stepflow::RequiredBytes(TF_STRING, TF_TensorElementCount(t));
  }
  if (stepflow::IsFixedSize(t->dtype)) {
    return stepflow::RequiredBytes(t->dtype, TF_TensorElementCount(t));
  }
  return t->storage->len;
}

void* TF_TensorData(const TF_Tensor* t) {
  return t == nullptr ? nullptr : t->storage->data;
}

void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type,
                          TF_Tensor* to, const int64_t* new_dims,
                          int num_new_dims, TF_Status* status) {
  using stepflow::c_api::Set;
  stepflow::TensorShape shape;
  if (from == nullptr || to == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_TensorBitcastFrom: from and to are required"));
    return;
  }
  if (!stepflow::BuildShape(new_dims, num_new_dims, &shape)) {
    Set(status, absl::InvalidArgumentError(
                    "TF_TensorBitcastFrom: invalid new dimensions"));
    return;
  }
  if (!stepflow::IsFixedSize(type) || !stepflow::IsFixedSize(from->dtype)) {
    Set(status, absl::InvalidArgumentError(
                    "TF_TensorBitcastFrom: both types need a fixed element "
                    "size"));
    return;
  }
  const size_t in_bytes = TF_TensorByteSize(from);
  const size_t out_bytes = stepflow::RequiredBytes(type, shape.num_elements());
  if (in_bytes != out_bytes) {
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    "Cannot bitcast from ", from->dtype, " to ", type,
                    ": the new shape ", shape.DebugString(), " holds ",
                    out_bytes, " bytes but the tensor has ", in_bytes)));
    return;
  }
  to->dtype = type;
  to->dims.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
  to->storage = from->storage;
  Set(status, absl::OkStatus());
}

bool TF_TensorIsAligned(const TF_Tensor* t) {
  return t != nullptr &&
         reinterpret_cast<uintptr_t>(t->storage->data) % stepflow::kAlignment ==
             0;
}

}  // extern "C"
