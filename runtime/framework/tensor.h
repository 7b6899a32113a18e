// Tensor: a typed, shaped, reference-counted n-dimensional array.
//
// Copying a Tensor is cheap: copies share one buffer (TensorBuffer, atomically
// refcounted). Writers that need a private copy use DeepCopy. A default
// Tensor is "uninitialized" (DT_INVALID, no buffer) — distinct from an empty
// tensor with zero elements.
//
// Element storage: contiguous, row-major. Strings are stored as std::string
// objects (constructed/destroyed with the buffer); DT_RESOURCE as
// ResourceHandleProto objects; DT_VARIANT as Variant objects (variant.h).
//
// Allocation: Tensor::Allocate takes the bytes from an Allocator and
// reports a refusal as ResourceExhausted; it is the path for every tensor
// whose size comes from a client (kernel outputs through OpKernelContext,
// decoded TensorProtos, feeds). The constructor Tensor(dtype, shape) cannot
// report failure: it is for sizes the runtime bounds itself (scalars,
// shapes, test values) and aborts the process if even that fails.
//
// Thread-safety: a Tensor object is a value; distinct Tensor objects sharing
// a buffer may be used from different threads. Mutating elements of a shared
// buffer concurrently is the caller's responsibility (as in TensorFlow; ref
// variables rely on it).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "proto/resource_handle.pb.h"
#include "runtime/framework/allocator.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"
#include "runtime/framework/variant.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace stepflow {

// DT_RESOURCE elements are stored as ResourceHandleProto values.
template <>
struct DataTypeToEnum<ResourceHandleProto> {
  static constexpr DataType value = DT_RESOURCE;
};
template <>
struct EnumToDataType<DT_RESOURCE> {
  using Type = ResourceHandleProto;
};
// DT_VARIANT elements are stored as Variant values.
template <>
struct DataTypeToEnum<Variant> {
  static constexpr DataType value = DT_VARIANT;
};
template <>
struct EnumToDataType<DT_VARIANT> {
  using Type = Variant;
};

// What a new tensor's elements hold. kZeros: value-initialised (zeros,
// empty strings, empty handles). kUninitialized: for a kernel that writes
// every element before anyone reads them, which saves a pass over the
// bytes; only the memcpyable dtypes are left unwritten (strings, handles
// and variants are still constructed). Debug and AddressSanitizer builds
// fill them with 0xFF bytes (NaN for the floating types) so that an element
// a kernel forgot shows up, the same way every run.
enum class TensorFill { kZeros, kUninitialized };

// The refcounted storage behind one or more Tensors.
class TensorBuffer {
 public:
  // Storage for `num_elements` of `dtype` from `allocator` (borrowed; must
  // outlive the buffer), filled as `fill` says and 64-byte aligned; the
  // buffer holds one reference. InvalidArgument for an unsupported dtype or
  // a negative count; ResourceExhausted (the bytes and the allocator's name
  // and stats) when the allocator refuses or the size overflows.
  static absl::Status Allocate(Allocator* allocator, DataType dtype,
                               int64_t num_elements, TensorBuffer** out,
                               TensorFill fill = TensorFill::kZeros);
  // Adopts storage owned elsewhere (device memory, a pool): `data` holds
  // `num_elements` of memcpyable `dtype`; the buffer never reads or writes
  // the bytes and runs `release(data)` when the last reference goes.
  TensorBuffer(DataType dtype, int64_t num_elements, void* data,
               std::function<void(void*)> release);
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Deletes the buffer when the count drops to zero.
  void Unref();
  bool RefCountIsOne() const {
    return refs_.load(std::memory_order_acquire) == 1;
  }

  void* data() const { return data_; }
  size_t size_bytes() const { return bytes_; }
  DataType dtype() const { return dtype_; }
  int64_t num_elements() const { return num_elements_; }

 private:
  TensorBuffer(Allocator* allocator, DataType dtype, int64_t num_elements,
               size_t bytes, void* data);
  ~TensorBuffer();
  std::atomic<int64_t> refs_{1};
  DataType dtype_;
  int64_t num_elements_;
  size_t bytes_;
  void* data_;
  Allocator* allocator_ = nullptr;      // Set for allocated storage.
  std::function<void(void*)> release_;  // Set for adopted storage.
};

class Tensor {
 public:
  // Uninitialized tensor: dtype() == DT_INVALID, !IsInitialized().
  Tensor();
  // A tensor from `allocator` (borrowed; must outlive the tensor's
  // buffer), zero-filled unless `fill` says otherwise. InvalidArgument for
  // a ref or unsupported dtype or an invalid shape; ResourceExhausted ("OOM
  // when allocating tensor with shape[...] and type ... by allocator ...",
  // with the bytes) when the allocator refuses. `*out` is untouched on
  // error.
  static absl::Status Allocate(Allocator* allocator, DataType dtype,
                               const TensorShape& shape, Tensor* out,
                               TensorFill fill = TensorFill::kZeros);
  // A zero-filled tensor from cpu_allocator(), for sizes the runtime bounds
  // itself: aborts the process if the allocation fails. `dtype` must be a
  // supported non-ref type. Never for client-sized tensors (use Allocate).
  Tensor(DataType dtype, const TensorShape& shape);
  // Scalar helpers.
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape({}));
    t.flat<T>()(0) = std::move(value);
    return t;
  }
  // A 1-D tensor with `values`.
  template <typename T>
  static Tensor Vector(std::initializer_list<T> values) {
    Tensor t(DataTypeToEnum<T>::value,
             TensorShape({static_cast<int64_t>(values.size())}));
    int64_t i = 0;
    for (const T& v : values) t.flat<T>()(i++) = v;
    return t;
  }

  // Wraps `buffer` (adopting the caller's reference) with `shape`, whose
  // element count must equal the buffer's and whose dtype is the buffer's.
  Tensor(const TensorShape& shape, TensorBuffer* buffer);
  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  bool IsInitialized() const;
  // Bytes of element storage (0 for string tensors' heap data).
  size_t TotalBytes() const;

  // True if both tensors share one buffer.
  bool SharesBufferWith(const Tensor& other) const;
  // True if this is the only Tensor referring to its buffer.
  bool RefCountIsOne() const;

  // A tensor with the same buffer and a new shape of the same element count.
  // InvalidArgument otherwise.
  absl::Status BitcastFrom(const Tensor& other, const TensorShape& shape);
  // Same as BitcastFrom but returns false instead of an error.
  bool CopyFrom(const Tensor& other, const TensorShape& shape);
  // An independent copy of the data (from cpu_allocator(); aborts if that
  // fails). DeepCopyTo allocates from `allocator` and reports failure.
  Tensor DeepCopy() const;
  absl::Status DeepCopyTo(Allocator* allocator, Tensor* out) const;

  // Raw element pointer (nullptr when uninitialized).
  void* raw_data() const;
  template <typename T>
  T* base() const {
    return static_cast<T*>(raw_data());
  }

  // Eigen views. T must match dtype() (checked with a fatal check in debug
  // and asan builds, since a mismatch is a kernel programming error).
  template <typename T>
  using Flat =
      Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                       Eigen::Aligned>;
  template <typename T>
  using ConstFlat = Eigen::TensorMap<
      Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
      Eigen::Aligned>;
  template <typename T, int NDIMS>
  using Mapped = Eigen::TensorMap<
      Eigen::Tensor<T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>,
      Eigen::Aligned>;
  template <typename T, int NDIMS>
  using ConstMapped = Eigen::TensorMap<
      Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>,
      Eigen::Aligned>;

  template <typename T>
  Flat<T> flat() {
    CheckType(DataTypeToEnum<T>::value);
    return Flat<T>(base<T>(), NumElements());
  }
  template <typename T>
  ConstFlat<T> flat() const {
    CheckType(DataTypeToEnum<T>::value);
    return ConstFlat<T>(base<const T>(), NumElements());
  }
  template <typename T>
  Flat<T> vec() {
    CheckTypeAndRank(DataTypeToEnum<T>::value, 1);
    return Flat<T>(base<T>(), NumElements());
  }
  template <typename T>
  ConstFlat<T> vec() const {
    CheckTypeAndRank(DataTypeToEnum<T>::value, 1);
    return ConstFlat<T>(base<const T>(), NumElements());
  }
  template <typename T>
  Mapped<T, 2> matrix() {
    CheckTypeAndRank(DataTypeToEnum<T>::value, 2);
    return Mapped<T, 2>(base<T>(), dim_size(0), dim_size(1));
  }
  template <typename T>
  ConstMapped<T, 2> matrix() const {
    CheckTypeAndRank(DataTypeToEnum<T>::value, 2);
    return ConstMapped<T, 2>(base<const T>(), dim_size(0), dim_size(1));
  }
  // An NDIMS view; the shape is padded with leading 1s or its leading dims
  // collapsed into the first to fit NDIMS.
  template <typename T, int NDIMS>
  Mapped<T, NDIMS> shaped_to() {
    CheckType(DataTypeToEnum<T>::value);
    return Mapped<T, NDIMS>(base<T>(), FitDims<NDIMS>());
  }
  template <typename T, int NDIMS>
  ConstMapped<T, NDIMS> shaped_to() const {
    CheckType(DataTypeToEnum<T>::value);
    return ConstMapped<T, NDIMS>(base<const T>(), FitDims<NDIMS>());
  }
  template <typename T>
  T& scalar() {
    CheckType(DataTypeToEnum<T>::value);
    return *base<T>();
  }
  template <typename T>
  const T& scalar() const {
    CheckType(DataTypeToEnum<T>::value);
    return *base<const T>();
  }

  // "Tensor<type: float shape: [2] values: [1 2]>" with up to `max_entries`
  // values (an empty tensor's are "[]": the shape is already there).
  std::string DebugString(int max_entries = 8) const;
  // Just the values: "[1 2 3]", "[[1 2][3 4]]", "42"; up to `max_entries`
  // (negative: all), "..." where it stopped. A tensor with no elements is
  // "[]" when its shape is [0] and "[] (shape [2,0])" otherwise, as NumPy
  // prints them, whatever `max_entries`.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  void CheckType(DataType expected) const;
  void CheckTypeAndRank(DataType expected, int rank) const;
  template <int NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> FitDims() const {
    Eigen::DSizes<Eigen::DenseIndex, NDIMS> out;
    const int n = dims();
    if (n <= NDIMS) {
      for (int i = 0; i < NDIMS - n; ++i) out[i] = 1;
      for (int i = 0; i < n; ++i) out[NDIMS - n + i] = dim_size(i);
    } else {
      int64_t lead = 1;
      for (int i = 0; i <= n - NDIMS; ++i) lead *= dim_size(i);
      out[0] = lead;
      for (int i = 1; i < NDIMS; ++i) out[i] = dim_size(n - NDIMS + i);
    }
    return out;
  }

  DataType dtype_;
  TensorShape shape_;
  TensorBuffer* buf_;  // Owned reference (Unref on destruction); may be null.
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_H_
