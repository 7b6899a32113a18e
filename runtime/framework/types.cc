#include "runtime/framework/types.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow {
namespace {

// TensorFlow's spelling of each non-ref type; nullptr for unnamed values.
const char* BaseTypeName(DataType dt) {
  switch (dt) {
    case DT_INVALID:
      return "INVALID";
    case DT_FLOAT:
      return "float";
    case DT_DOUBLE:
      return "double";
    case DT_INT32:
      return "int32";
    case DT_UINT8:
      return "uint8";
    case DT_INT16:
      return "int16";
    case DT_INT8:
      return "int8";
    case DT_STRING:
      return "string";
    case DT_COMPLEX64:
      return "complex64";
    case DT_INT64:
      return "int64";
    case DT_BOOL:
      return "bool";
    case DT_QINT8:
      return "qint8";
    case DT_QUINT8:
      return "quint8";
    case DT_QINT32:
      return "qint32";
    case DT_BFLOAT16:
      return "bfloat16";
    case DT_QINT16:
      return "qint16";
    case DT_QUINT16:
      return "quint16";
    case DT_UINT16:
      return "uint16";
    case DT_COMPLEX128:
      return "complex128";
    case DT_HALF:
      return "half";
    case DT_RESOURCE:
      return "resource";
    case DT_VARIANT:
      return "variant";
    case DT_UINT32:
      return "uint32";
    case DT_UINT64:
      return "uint64";
    default:
      return nullptr;
  }
}

}  // namespace

std::string DataTypeString(DataType dt) {
  if (IsRefType(dt)) {
    const char* base = BaseTypeName(BaseType(dt));
    if (base == nullptr || BaseType(dt) == DT_INVALID) {
      return absl::StrCat("unknown dtype enum (", static_cast<int>(dt), ")");
    }
    return absl::StrCat(base, "_ref");
  }
  const char* name = BaseTypeName(dt);
  if (name == nullptr) {
    return absl::StrCat("unknown dtype enum (", static_cast<int>(dt), ")");
  }
  return name;
}

bool DataTypeFromString(absl::string_view s, DataType* dt) {
  bool is_ref = false;
  std::string name;
  if (absl::StartsWith(s, "DT_")) {
    // Enum spelling: "DT_FLOAT", "DT_FLOAT_REF".
    for (int v = 0; v <= 200; ++v) {
      if (!DataType_IsValid(v)) continue;
      if (DataType_Name(static_cast<DataType>(v)) == s) {
        if (v == DT_INVALID) return false;
        *dt = static_cast<DataType>(v);
        return true;
      }
    }
    return false;
  }
  if (absl::EndsWith(s, "_ref")) {
    is_ref = true;
    s.remove_suffix(4);
  }
  for (int v = 1; v < 100; ++v) {
    const char* n = BaseTypeName(static_cast<DataType>(v));
    if (n != nullptr && s == n) {
      *dt = is_ref ? MakeRefType(static_cast<DataType>(v))
                   : static_cast<DataType>(v);
      return true;
    }
  }
  return false;
}

std::string DataTypeVectorString(const DataTypeVector& dts) {
  return absl::StrJoin(dts, ", ", [](std::string* out, DataType dt) {
    out->append(DataTypeString(dt));
  });
}

bool DataTypeIsSupported(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
    case DT_BOOL:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_STRING:
    case DT_RESOURCE:
    case DT_VARIANT:
      return true;
    default:
      return false;
  }
}

int DataTypeSize(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
      return sizeof(float);
    case DT_DOUBLE:
      return sizeof(double);
    case DT_INT8:
      return sizeof(int8_t);
    case DT_INT16:
      return sizeof(int16_t);
    case DT_INT32:
      return sizeof(int32_t);
    case DT_INT64:
      return sizeof(int64_t);
    case DT_UINT8:
      return sizeof(uint8_t);
    case DT_UINT16:
      return sizeof(uint16_t);
    case DT_UINT32:
      return sizeof(uint32_t);
    case DT_UINT64:
      return sizeof(uint64_t);
    case DT_BOOL:
      return sizeof(bool);
    case DT_COMPLEX64:
      return sizeof(complex64);
    case DT_COMPLEX128:
      return sizeof(complex128);
    case DT_HALF:
      return sizeof(half);
    case DT_BFLOAT16:
      return sizeof(bfloat16);
    default:
      return 0;
  }
}

bool DataTypeIsMemcpyable(DataType dt) { return DataTypeSize(dt) > 0; }

bool DataTypeIsFloating(DataType dt) {
  return dt == DT_HALF || dt == DT_BFLOAT16 || dt == DT_FLOAT ||
         dt == DT_DOUBLE;
}

bool DataTypeIsInteger(DataType dt) {
  switch (dt) {
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dt) {
  return dt == DT_COMPLEX64 || dt == DT_COMPLEX128;
}

bool TypeCompatible(DataType expected, DataType actual) {
  return expected == actual || (IsRefType(actual) && !IsRefType(expected) &&
                                BaseType(actual) == expected);
}

}  // namespace stepflow
