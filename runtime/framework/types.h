// DataType helpers: names, sizes, ref types and the C++ <-> enum mapping.
//
// DataType itself is the proto enum (proto/types.proto), so values are
// TensorFlow's. Supported element types for Tensor storage:
//   float, double, int8/16/32/64, uint8/16/32/64, bool, complex64,
//   complex128, Eigen::half, Eigen::bfloat16, std::string (DT_STRING).
// DT_RESOURCE tensors hold ResourceHandle values (resource_handle.h),
// DT_VARIANT tensors Variant values (variant.h).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TYPES_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/types.pb.h"

namespace stepflow {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;
using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

// A node's or kernel's input or output types. Up to four are held inline
// (as TensorFlow's gtl::InlinedVector<DataType, 4>): most ops have that
// few, so a node's signature costs no allocation.
using DataTypeVector = absl::InlinedVector<DataType, 4>;

// "float", "int32", "float_ref", ... (TensorFlow's spelling).
std::string DataTypeString(DataType dt);
// Accepts "float", "DT_FLOAT", "float_ref", "DT_FLOAT_REF". False if unknown.
bool DataTypeFromString(absl::string_view s, DataType* dt);
std::string DataTypeVectorString(const DataTypeVector& dts);

inline bool IsRefType(DataType dt) { return static_cast<int>(dt) > 100; }
inline DataType MakeRefType(DataType dt) {
  return IsRefType(dt) ? dt : static_cast<DataType>(dt + 100);
}
inline DataType BaseType(DataType dt) {
  return IsRefType(dt) ? static_cast<DataType>(dt - 100) : dt;
}
// True for a non-ref type Tensor can store (the list above + resource and
// variant).
bool DataTypeIsSupported(DataType dt);
// Size in bytes of one element; 0 for string/resource/variant/invalid.
int DataTypeSize(DataType dt);
// Types whose values can be copied as raw bytes (everything numeric + bool).
bool DataTypeIsMemcpyable(DataType dt);
bool DataTypeIsFloating(DataType dt);  // half, bfloat16, float, double
bool DataTypeIsInteger(DataType dt);   // signed and unsigned ints
bool DataTypeIsComplex(DataType dt);

// Whether a value of type `actual` may be used where `expected` is wanted:
// equal, or `actual` is the ref form of `expected` (refs auto-dereference).
bool TypeCompatible(DataType expected, DataType actual);

// C++ type -> enum.
template <typename T>
struct DataTypeToEnum;
// enum -> C++ type.
template <DataType DT>
struct EnumToDataType;

#define SF_MATCH_TYPE_AND_ENUM(TYPE, ENUM)  \
  template <>                               \
  struct DataTypeToEnum<TYPE> {             \
    static constexpr DataType value = ENUM; \
  };                                        \
  template <>                               \
  struct EnumToDataType<ENUM> {             \
    using Type = TYPE;                      \
  }

SF_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
SF_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
SF_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
SF_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
SF_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
SF_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
SF_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
SF_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
SF_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
SF_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
SF_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
SF_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
SF_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
SF_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
SF_MATCH_TYPE_AND_ENUM(half, DT_HALF);
SF_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);

#undef SF_MATCH_TYPE_AND_ENUM

// Type-list macros for instantiating kernels: m(T) for each type.
#define SF_CALL_half(m) m(::stepflow::half)
#define SF_CALL_REAL_NUMBER_TYPES(m)                                       \
  m(float) m(double) m(int32_t) m(int64_t) m(uint8_t) m(int16_t) m(int8_t) \
      m(uint16_t) m(uint32_t) m(uint64_t) m(::stepflow::half)              \
          m(::stepflow::bfloat16)
#define SF_CALL_FLOAT_TYPES(m) \
  m(float) m(double) m(::stepflow::half) m(::stepflow::bfloat16)
#define SF_CALL_INTEGRAL_TYPES(m)                                   \
  m(int32_t) m(int64_t) m(uint8_t) m(int16_t) m(int8_t) m(uint16_t) \
      m(uint32_t) m(uint64_t)
#define SF_CALL_COMPLEX_TYPES(m) \
  m(::stepflow::complex64) m(::stepflow::complex128)
#define SF_CALL_NUMBER_TYPES(m) \
  SF_CALL_REAL_NUMBER_TYPES(m) SF_CALL_COMPLEX_TYPES(m)
#define SF_CALL_POD_TYPES(m) SF_CALL_NUMBER_TYPES(m) m(bool)
#define SF_CALL_ALL_TYPES(m) SF_CALL_POD_TYPES(m) m(std::string)

// Runs `STMTS` with `T` bound to the C++ type of `dtype`, for POD + string
// types; otherwise runs `DEFAULT`.
#define SF_SWITCH_TYPE_CASE_(ENUM, STMTS) \
  case ENUM: {                            \
    using T = EnumToDataType<ENUM>::Type; \
    STMTS;                                \
    break;                                \
  }
#define SF_SWITCH_ALL_TYPES(dtype, STMTS, DEFAULT) \
  switch (dtype) {                                 \
    SF_SWITCH_TYPE_CASE_(DT_FLOAT, STMTS)          \
    SF_SWITCH_TYPE_CASE_(DT_DOUBLE, STMTS)         \
    SF_SWITCH_TYPE_CASE_(DT_INT32, STMTS)          \
    SF_SWITCH_TYPE_CASE_(DT_INT64, STMTS)          \
    SF_SWITCH_TYPE_CASE_(DT_UINT8, STMTS)          \
    SF_SWITCH_TYPE_CASE_(DT_INT16, STMTS)          \
    SF_SWITCH_TYPE_CASE_(DT_INT8, STMTS)           \
    SF_SWITCH_TYPE_CASE_(DT_UINT16, STMTS)         \
    SF_SWITCH_TYPE_CASE_(DT_UINT32, STMTS)         \
    SF_SWITCH_TYPE_CASE_(DT_UINT64, STMTS)         \
    SF_SWITCH_TYPE_CASE_(DT_BOOL, STMTS)           \
    SF_SWITCH_TYPE_CASE_(DT_HALF, STMTS)           \
    SF_SWITCH_TYPE_CASE_(DT_BFLOAT16, STMTS)       \
    SF_SWITCH_TYPE_CASE_(DT_COMPLEX64, STMTS)      \
    SF_SWITCH_TYPE_CASE_(DT_COMPLEX128, STMTS)     \
    SF_SWITCH_TYPE_CASE_(DT_STRING, STMTS)         \
    default: {                                     \
      DEFAULT;                                     \
    }                                              \
  }

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TYPES_H_
