// Shared helpers for CPU kernels: node-naming error constructors, reading
// integer vectors out of index tensors, output-size guards, type lists for
// registrations, arithmetic-type mapping, and element-size dispatch for
// kernels that only move data.
//
// Error contract: every helper that can fail returns an absl::Status whose
// message names the kernel's node ("{{node <name>}}", attached with
// AttachDef from runtime/framework/node_def_util.h); callers pass it to
// OP_REQUIRES_OK unchanged. Nothing here aborts on user data.
#ifndef STEPFLOW_RUNTIME_KERNELS_KERNEL_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {

// An error of `code` naming the kernel's node: the StrCat of `args`
// followed by the node (AttachDef, "<message>\n\t [[{{node <name>}}]]").
template <typename... Args>
absl::Status NodeError(absl::StatusCode code, const OpKernel& kernel,
                       const Args&... args) {
  return AttachDef(absl::Status(code, absl::StrCat(args...)), kernel.name());
}

// InvalidArgument naming the kernel's node. Arguments are StrCat'ed.
template <typename... Args>
absl::Status NodeInvalidArgument(const OpKernel& kernel, const Args&... args) {
  return NodeError(absl::StatusCode::kInvalidArgument, kernel, args...);
}
template <typename... Args>
absl::Status NodeInvalidArgument(OpKernelContext* ctx, const Args&... args) {
  return NodeInvalidArgument(ctx->op_kernel(), args...);
}
template <typename... Args>
absl::Status NodeInternal(OpKernelContext* ctx, const Args&... args) {
  return NodeError(absl::StatusCode::kInternal, ctx->op_kernel(), args...);
}

// Reads an int32 or int64 tensor of any shape into `out` (row-major).
// InvalidArgument naming the node for other dtypes.
absl::Status IndexTensorToVector(const OpKernel& kernel, const Tensor& t,
                                 std::vector<int64_t>* out);

// Builds a shape from user-supplied dims, rejecting negative dims, overflow
// and outputs too large to allocate (ResourceExhausted). Everything a kernel
// allocates from user-controlled sizes goes through this or
// CheckAllocationSize.
absl::Status MakeOutputShape(const OpKernel& kernel,
                             absl::Span<const int64_t> dims, DataType dtype,
                             TensorShape* out);
// ResourceExhausted naming the node if `shape` of `dtype` exceeds the
// per-tensor allocation limit.
absl::Status CheckAllocationSize(const OpKernel& kernel,
                                 const TensorShape& shape, DataType dtype);
// The per-tensor limit used above (bytes).
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 36;  // 64 GiB

// Type lists for registrations (TypeConstraint(attr, list)).
std::vector<DataType> AllTypes();         // POD + string.
std::vector<DataType> PodTypes();         // numbers + bool.
std::vector<DataType> NumberTypes();      // real + complex.
std::vector<DataType> RealNumberTypes();  // ints, uints, floats.

// Normalises `axis` in [-rank, rank) to [0, rank); false if out of range.
inline bool NormalizeAxis(int64_t axis, int rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

// The type arithmetic is done in: int32/int64 wrap (as two's complement)
// instead of overflowing, by computing in the unsigned type of equal width;
// Add/Sub/Mul/Neg give bit-identical results that way. Narrower integers are
// promoted to int by C++ and cannot overflow there (except uint16 products,
// which Mul handles separately).
template <typename T>
struct ArithTypeImpl {
  using type = T;
};
template <>
struct ArithTypeImpl<int32_t> {
  using type = uint32_t;
};
template <>
struct ArithTypeImpl<int64_t> {
  using type = uint64_t;
};
template <typename T>
using ArithType = typename ArithTypeImpl<T>::type;

// Types accumulations run in: float for the 16-bit floats.
template <typename T>
struct AccumType {
  using type = T;
};
template <>
struct AccumType<half> {
  using type = float;
};
template <>
struct AccumType<bfloat16> {
  using type = float;
};

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

// A 16-byte trivially copyable element (complex128) for data movement.
struct Bytes16 {
  uint64_t lo, hi;
};

// Calls `fn(U{})` with U an element type of the same size and copy semantics
// as `dtype`'s: std::string for DT_STRING, an unsigned integer (or Bytes16)
// of the element's width for everything memcpy-able. Returns false (without
// calling) for other dtypes. Data-movement kernels use it to instantiate once
// per element size instead of once per dtype.
template <typename Fn>
bool DispatchByElementSize(DataType dtype, Fn&& fn) {
  if (dtype == DT_STRING) {
    fn(std::string());
    return true;
  }
  if (!DataTypeIsMemcpyable(dtype)) return false;
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(uint8_t{});
      return true;
    case 2:
      fn(uint16_t{});
      return true;
    case 4:
      fn(uint32_t{});
      return true;
    case 8:
      fn(uint64_t{});
      return true;
    case 16:
      fn(Bytes16{});
      return true;
    default:
      return false;
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_KERNEL_UTIL_H_
