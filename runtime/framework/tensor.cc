#include "runtime/framework/tensor.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/cpu_allocator.h"

namespace stepflow {
namespace {

constexpr size_t kAlignment = 64;

[[noreturn]] void Fatal(const std::string& msg) {
  std::fprintf(stderr, "Fatal tensor error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

// Bytes occupied by one element in a buffer of `dtype`.
size_t ElementSize(DataType dtype) {
  if (dtype == DT_STRING) return sizeof(std::string);
  if (dtype == DT_RESOURCE) return sizeof(ResourceHandleProto);
  if (dtype == DT_VARIANT) return sizeof(Variant);
  return static_cast<size_t>(DataTypeSize(dtype));
}

// " (num_allocs 1, bytes_in_use 64, ...)" or "" for an allocator without
// stats.
std::string AllocatorState(Allocator* allocator) {
  std::optional<AllocatorStats> stats = allocator->GetStats();
  if (!stats.has_value()) return "";
  return absl::StrCat(" (", stats->DebugString(), ")");
}

}  // namespace

absl::Status TensorBuffer::Allocate(Allocator* allocator, DataType dtype,
                                    int64_t num_elements, TensorBuffer** out,
                                    TensorFill fill) {
  if (!DataTypeIsSupported(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot allocate a tensor buffer of unsupported type ",
                     DataTypeString(dtype)));
  }
  if (num_elements < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot allocate a negative element count ", num_elements));
  }
  const size_t elem = ElementSize(dtype);
  if (static_cast<uint64_t>(num_elements) >
      (static_cast<uint64_t>(1) << 62) / elem) {
    return absl::ResourceExhaustedError(
        absl::StrCat("A tensor buffer of ", num_elements, " elements of ",
                     DataTypeString(dtype), " is too large to allocate"));
  }
  const size_t bytes = static_cast<size_t>(num_elements) * elem;
  void* data = allocator->AllocateRaw(kAlignment, bytes);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("OOM allocating ", bytes, " bytes by allocator ",
                     allocator->Name(), AllocatorState(allocator)));
  }
  if (dtype == DT_STRING) {
    std::string* p = static_cast<std::string*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (p + i) std::string();
  } else if (dtype == DT_RESOURCE) {
    ResourceHandleProto* p = static_cast<ResourceHandleProto*>(data);
    for (int64_t i = 0; i < num_elements; ++i)
      new (p + i) ResourceHandleProto();
  } else if (dtype == DT_VARIANT) {
    Variant* p = static_cast<Variant*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (p + i) Variant();
  } else if (fill == TensorFill::kZeros) {
    std::memset(data, 0, bytes);
  } else {
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
    std::memset(data, 0xFF, bytes);  // see TensorFill
#endif
  }
  *out = new TensorBuffer(allocator, dtype, num_elements, bytes, data);
  return absl::OkStatus();
}

TensorBuffer::TensorBuffer(Allocator* allocator, DataType dtype,
                           int64_t num_elements, size_t bytes, void* data)
    : dtype_(dtype),
      num_elements_(num_elements),
      bytes_(bytes),
      data_(data),
      allocator_(allocator) {}

TensorBuffer::TensorBuffer(DataType dtype, int64_t num_elements, void* data,
                           std::function<void(void*)> release)
    : dtype_(dtype),
      num_elements_(num_elements),
      data_(data),
      release_(std::move(release)) {
  if (!DataTypeIsMemcpyable(dtype) || num_elements < 0) {
    Fatal(absl::StrCat("cannot adopt storage for ", num_elements,
                       " elements of ", DataTypeString(dtype)));
  }
  bytes_ = static_cast<size_t>(num_elements) * ElementSize(dtype);
}

TensorBuffer::~TensorBuffer() {
  if (release_) {
    release_(data_);
    return;
  }
  if (dtype_ == DT_STRING) {
    std::string* p = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) p[i].~basic_string();
  } else if (dtype_ == DT_RESOURCE) {
    ResourceHandleProto* p = static_cast<ResourceHandleProto*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) p[i].~ResourceHandleProto();
  } else if (dtype_ == DT_VARIANT) {
    Variant* p = static_cast<Variant*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) p[i].~Variant();
  }
  allocator_->DeallocateRaw(data_, kAlignment, bytes_);
}

void TensorBuffer::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

Tensor::Tensor() : dtype_(DT_INVALID), buf_(nullptr) {}

absl::Status Tensor::Allocate(Allocator* allocator, DataType dtype,
                              const TensorShape& shape, Tensor* out,
                              TensorFill fill) {
  if (IsRefType(dtype) || !DataTypeIsSupported(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot allocate a tensor of type ", DataTypeString(dtype)));
  }
  TensorShape checked;
  absl::Status s = TensorShape::BuildTensorShape(shape.dim_sizes(), &checked);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot allocate a tensor of shape ", shape.DebugString(),
                     ": ", s.message()));
  }
  TensorBuffer* buf = nullptr;
  s = TensorBuffer::Allocate(allocator, dtype, shape.num_elements(), &buf,
                             fill);
  if (!s.ok()) {
    if (!absl::IsResourceExhausted(s)) return s;
    // TensorFlow's words, which tools grep for, and the bytes asked for.
    const uint64_t n = static_cast<uint64_t>(shape.num_elements());
    const uint64_t elem = ElementSize(dtype);
    const std::string bytes = n > UINT64_MAX / elem
                                  ? absl::StrCat(n, " elements")
                                  : absl::StrCat(n * elem, " bytes");
    return absl::ResourceExhaustedError(absl::StrCat(
        "OOM when allocating tensor with shape", shape.DebugString(),
        " and type ", DataTypeString(dtype), " by allocator ",
        allocator->Name(), " (", bytes, ")", AllocatorState(allocator)));
  }
  *out = Tensor(shape, buf);
  return absl::OkStatus();
}

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : dtype_(DT_INVALID), buf_(nullptr) {
  absl::Status s = Allocate(cpu_allocator(), dtype, shape, this);
  if (!s.ok()) Fatal(std::string(s.message()));
}

Tensor::Tensor(const TensorShape& shape, TensorBuffer* buffer)
    : dtype_(buffer->dtype()), shape_(shape), buf_(buffer) {
  if (shape.num_elements() != buffer->num_elements()) {
    Fatal(absl::StrCat("shape ", shape.DebugString(),
                       " does not fit a buffer of ", buffer->num_elements(),
                       " elements"));
  }
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  if (buf_ != nullptr) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_) {
  other.dtype_ = DT_INVALID;
  other.shape_.Clear();
  other.buf_ = nullptr;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  if (other.buf_ != nullptr) other.buf_->Ref();
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  buf_ = other.buf_;
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  buf_ = other.buf_;
  other.dtype_ = DT_INVALID;
  other.shape_.Clear();
  other.buf_ = nullptr;
  return *this;
}

Tensor::~Tensor() {
  if (buf_ != nullptr) buf_->Unref();
}

bool Tensor::IsInitialized() const { return buf_ != nullptr; }

size_t Tensor::TotalBytes() const {
  return buf_ == nullptr ? 0 : buf_->size_bytes();
}

bool Tensor::SharesBufferWith(const Tensor& other) const {
  return buf_ != nullptr && buf_ == other.buf_;
}

bool Tensor::RefCountIsOne() const {
  return buf_ != nullptr && buf_->RefCountIsOne();
}

absl::Status Tensor::BitcastFrom(const Tensor& other,
                                 const TensorShape& shape) {
  if (!other.IsInitialized()) {
    return absl::InvalidArgumentError("Cannot reshape an uninitialized tensor");
  }
  for (int i = 0; i < shape.dims(); ++i) {
    if (shape.dim_size(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid shape ", shape.DebugString()));
    }
  }
  TensorShape checked;
  absl::Status s = TensorShape::BuildTensorShape(shape.dim_sizes(), &checked);
  if (!s.ok()) return s;
  if (shape.num_elements() != other.NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot reshape a tensor with ", other.NumElements(),
                     " elements to shape ", shape.DebugString(), " (",
                     shape.num_elements(), " elements)"));
  }
  Tensor copy(other);  // Keeps the buffer alive if other == *this.
  *this = std::move(copy);
  shape_ = shape;
  return absl::OkStatus();
}

bool Tensor::CopyFrom(const Tensor& other, const TensorShape& shape) {
  return BitcastFrom(other, shape).ok();
}

Tensor Tensor::DeepCopy() const {
  Tensor out;
  absl::Status s = DeepCopyTo(cpu_allocator(), &out);
  if (!s.ok()) Fatal(std::string(s.message()));
  return out;
}

absl::Status Tensor::DeepCopyTo(Allocator* allocator, Tensor* result) const {
  if (!IsInitialized()) {
    *result = Tensor();
    return absl::OkStatus();
  }
  Tensor out;
  absl::Status s = Allocate(allocator, dtype_, shape_, &out);
  if (!s.ok()) return s;
  const int64_t n = NumElements();
  if (dtype_ == DT_STRING) {
    const std::string* src = base<const std::string>();
    std::string* dst = out.base<std::string>();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else if (dtype_ == DT_RESOURCE) {
    const ResourceHandleProto* src = base<const ResourceHandleProto>();
    ResourceHandleProto* dst = out.base<ResourceHandleProto>();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else if (dtype_ == DT_VARIANT) {
    // Payloads are immutable: the copy shares them.
    const Variant* src = base<const Variant>();
    Variant* dst = out.base<Variant>();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else {
    std::memcpy(out.raw_data(), raw_data(), TotalBytes());
  }
  *result = std::move(out);
  return absl::OkStatus();
}

void* Tensor::raw_data() const {
  return buf_ == nullptr ? nullptr : buf_->data();
}

void Tensor::CheckType(DataType expected) const {
  if (dtype_ != expected) {
    Fatal(absl::StrCat("tensor type mismatch: the tensor holds ",
                       DataTypeString(dtype_), " but was accessed as ",
                       DataTypeString(expected)));
  }
}

void Tensor::CheckTypeAndRank(DataType expected, int rank) const {
  CheckType(expected);
  if (dims() != rank) {
    Fatal(absl::StrCat("tensor rank mismatch: the tensor has shape ",
                       shape_.DebugString(), " but was accessed with rank ",
                       rank));
  }
}

namespace {

template <typename T>
void AppendElement(std::string* out, const T& v) {
  absl::StrAppend(out, v);
}
template <>
void AppendElement<bool>(std::string* out, const bool& v) {
  out->append(v ? "1" : "0");
}
template <>
void AppendElement<int8_t>(std::string* out, const int8_t& v) {
  absl::StrAppend(out, static_cast<int>(v));
}
template <>
void AppendElement<uint8_t>(std::string* out, const uint8_t& v) {
  absl::StrAppend(out, static_cast<unsigned>(v));
}
template <>
void AppendElement<half>(std::string* out, const half& v) {
  absl::StrAppend(out, static_cast<float>(v));
}
template <>
void AppendElement<bfloat16>(std::string* out, const bfloat16& v) {
  absl::StrAppend(out, static_cast<float>(v));
}
template <>
void AppendElement<complex64>(std::string* out, const complex64& v) {
  absl::StrAppend(out, "(", v.real(), ",", v.imag(), ")");
}
template <>
void AppendElement<complex128>(std::string* out, const complex128& v) {
  absl::StrAppend(out, "(", v.real(), ",", v.imag(), ")");
}
template <>
void AppendElement<ResourceHandleProto>(std::string* out,
                                        const ResourceHandleProto& v) {
  absl::StrAppend(out, "<ResourceHandle(name=\"", v.name(), "\", device=\"",
                  v.device(), "\", container=\"", v.container(), "\")>");
}
template <>
void AppendElement<Variant>(std::string* out, const Variant& v) {
  absl::StrAppend(out, "<", v.DebugString(), ">");
}

// Prints dimension `dim` starting at flat element `*index`; stops once
// `limit` elements were printed (appending "..." where it stopped).
template <typename T>
void PrintDim(const T* data, absl::Span<const int64_t> dims, int dim,
              int64_t limit, int64_t* index, bool* truncated,
              std::string* out) {
  out->append("[");
  const int64_t n = dims[dim];
  for (int64_t i = 0; i < n && !*truncated; ++i) {
    if (dim + 1 == static_cast<int>(dims.size())) {
      if (*index >= limit) {
        *truncated = true;
        out->append("...");
        break;
      }
      if (i > 0) out->append(" ");
      AppendElement(out, data[(*index)++]);
    } else {
      if (*index >= limit) {
        *truncated = true;
        out->append("...");
        break;
      }
      PrintDim(data, dims, dim + 1, limit, index, truncated, out);
    }
  }
  out->append("]");
}

template <typename T>
std::string Summarize(const Tensor& t, int64_t max_entries) {
  const T* data = t.base<const T>();
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (t.dims() == 0) {
    if (limit == 0) return "...";
    AppendElement(&out, data[0]);
    return out;
  }
  int64_t index = 0;
  bool truncated = false;
  PrintDim(data, t.shape().dim_sizes(), 0, limit, &index, &truncated, &out);
  return out;
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  if (dtype_ != DT_INVALID && dims() > 0 && NumElements() == 0) {
    // NumPy's form: "[]", with the shape when it is not [0] (an empty
    // [2,0] would otherwise look like an empty [0], or like a truncation).
    if (dims() == 1) return "[]";
    return absl::StrCat("[] (shape ", shape_.DebugString(), ")");
  }
  if (!IsInitialized()) {
    return absl::StrCat("uninitialized Tensor of ", NumElements(),
                        " elements of type ", DataTypeString(dtype_));
  }
  if (dtype_ == DT_RESOURCE)
    return Summarize<ResourceHandleProto>(*this, max_entries);
  if (dtype_ == DT_VARIANT) return Summarize<Variant>(*this, max_entries);
  std::string out;
  SF_SWITCH_ALL_TYPES(
      dtype_, out = Summarize<T>(*this, max_entries),
      out = absl::StrCat("<unprintable type ", DataTypeString(dtype_), ">"));
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  // The shape is printed already: an empty tensor's values are just "[]".
  const bool empty = dtype_ != DT_INVALID && dims() > 0 && NumElements() == 0;
  return absl::StrCat(
      "Tensor<type: ", DataTypeString(dtype_), " shape: ", shape_.DebugString(),
      " values: ", empty ? "[]" : SummarizeValue(max_entries), ">");
}

}  // namespace stepflow
