#include "runtime/framework/tensor_util.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace {

// Decoding refuses tensors larger than this (elements), so a tiny malformed
// proto ("last value repeats" with a huge shape) cannot exhaust memory.
constexpr int64_t kMaxProtoElements = int64_t{1} << 40;
// ... and larger than this many bytes of element storage.
constexpr int64_t kMaxProtoBytes = int64_t{1} << 34;

std::string Describe(const TensorProto& proto, const TensorShape& shape) {
  return absl::StrCat("TensorProto of type ", DataTypeString(proto.dtype()),
                      " and shape ", shape.DebugString());
}

// Copies `count` values read by `get(i)` into `out`, repeating the last one
// up to `n` elements.
template <typename T, typename Getter>
void FillRepeating(int64_t count, int64_t n, Getter get, T* out) {
  if (count == 0) return;  // Already zero/empty.
  for (int64_t i = 0; i < n; ++i) {
    out[i] = get(i < count ? i : count - 1);
  }
}

absl::Status CheckCount(const TensorProto& proto, const TensorShape& shape,
                        int64_t count, int64_t n) {
  if (count > n) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(proto, shape), " has ", count,
                     " values but only ", n, " elements"));
  }
  return absl::OkStatus();
}

// The dtype and shape `proto` declares, refused when unsupported or too
// large to decode.
absl::Status ProtoDtypeAndShape(const TensorProto& proto, TensorShape* shape) {
  const DataType dtype = proto.dtype();
  // Variants live only in memory: no TensorProto encoding (variant.h).
  if (IsRefType(dtype) || !DataTypeIsSupported(dtype) || dtype == DT_VARIANT) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto has unsupported dtype ", DataTypeString(dtype)));
  }
  absl::Status s = TensorShape::FromProto(proto.tensor_shape(), shape);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto of type ", DataTypeString(dtype),
                     " has an invalid shape: ", s.message()));
  }
  const int64_t n = shape->num_elements();
  const int64_t elem_bytes =
      dtype == DT_STRING     ? static_cast<int64_t>(sizeof(std::string))
      : dtype == DT_RESOURCE ? static_cast<int64_t>(sizeof(ResourceHandleProto))
                             : DataTypeSize(dtype);
  if (n > kMaxProtoElements || n > kMaxProtoBytes / elem_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(proto, *shape), " is too large (", n, " elements)"));
  }
  return absl::OkStatus();
}

// Reads a varint32 at `*pos` of `bytes`; false past the end or if it runs
// over 5 bytes.
bool ReadVarint32(absl::string_view bytes, size_t* pos, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift < 35 && *pos < bytes.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(bytes[(*pos)++]);
    result |= static_cast<uint32_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      *value = result;
      return true;
    }
  }
  return false;
}

// Decodes a DT_STRING `proto` whose values are in tensor_content, as
// TensorFlow writes them (Tensor::AsProtoTensorContent, what its clients
// send for fed strings): the n lengths as varint32s, then the n strings'
// bytes back to back.
absl::Status FromStringContent(Allocator* allocator, const TensorProto& proto,
                               const TensorShape& shape, Tensor* out) {
  const absl::string_view content = proto.tensor_content();
  const int64_t n = shape.num_elements();
  if (n > static_cast<int64_t>(content.size())) {
    // Every string takes at least its one length byte.
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(proto, shape), " has tensor_content of ",
                     content.size(), " bytes, too few for ", n, " strings"));
  }
  std::vector<uint32_t> lengths(n);
  size_t pos = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!ReadVarint32(content, &pos, &lengths[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(proto, shape),
                       " has a malformed string length in tensor_content"));
    }
    total += lengths[i];
  }
  if (total != content.size() - pos) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(proto, shape), " has tensor_content whose string lengths add ",
        "up to ", total, " bytes but holds ", content.size() - pos));
  }
  Tensor t;
  SF_RETURN_IF_ERROR(Tensor::Allocate(allocator, DT_STRING, shape, &t));
  std::string* strings = t.base<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    strings[i].assign(content.data() + pos, lengths[i]);
    pos += lengths[i];
  }
  *out = std::move(t);
  return absl::OkStatus();
}

// Decodes a numeric `proto` whose values are in tensor_content.
absl::Status FromTensorContent(Allocator* allocator, const TensorProto& proto,
                               const TensorShape& shape, Tensor* out) {
  const DataType dtype = proto.dtype();
  if (dtype == DT_STRING) {
    return FromStringContent(allocator, proto, shape, out);
  }
  if (!DataTypeIsMemcpyable(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(proto, shape),
        " uses tensor_content, which is only supported for numeric types"));
  }
  const int64_t want = shape.num_elements() * DataTypeSize(dtype);
  if (static_cast<int64_t>(proto.tensor_content().size()) != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(proto, shape), " has tensor_content of ",
                     proto.tensor_content().size(), " bytes; expected ", want));
  }
  if (dtype == DT_BOOL) {
    for (char c : proto.tensor_content()) {
      if (c != 0 && c != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            Describe(proto, shape),
            " has a bool value other than 0 or 1 in tensor_content"));
      }
    }
  }
  Tensor t;
  SF_RETURN_IF_ERROR(Tensor::Allocate(allocator, dtype, shape, &t));
  if (want > 0) std::memcpy(t.raw_data(), proto.tensor_content().data(), want);
  *out = std::move(t);
  return absl::OkStatus();
}

// How many values the typed field of `proto`'s dtype holds (complex values
// count as (real, imag) pairs).
absl::Status TypedValueCount(const TensorProto& proto, const TensorShape& shape,
                             int64_t* count) {
  switch (proto.dtype()) {
    case DT_FLOAT:
      *count = proto.float_val_size();
      break;
    case DT_DOUBLE:
      *count = proto.double_val_size();
      break;
    case DT_INT32:
    case DT_INT16:
    case DT_INT8:
    case DT_UINT8:
    case DT_UINT16:
      *count = proto.int_val_size();
      break;
    case DT_INT64:
      *count = proto.int64_val_size();
      break;
    case DT_UINT32:
      *count = proto.uint32_val_size();
      break;
    case DT_UINT64:
      *count = proto.uint64_val_size();
      break;
    case DT_BOOL:
      *count = proto.bool_val_size();
      break;
    case DT_HALF:
    case DT_BFLOAT16:
      *count = proto.half_val_size();
      break;
    case DT_COMPLEX64:
    case DT_COMPLEX128: {
      const int64_t raw = proto.dtype() == DT_COMPLEX64
                              ? proto.scomplex_val_size()
                              : proto.dcomplex_val_size();
      if (raw % 2 != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            Describe(proto, shape), " has an odd number (", raw,
            ") of complex components; expected (real, imag) pairs"));
      }
      *count = raw / 2;
      break;
    }
    case DT_STRING:
      *count = proto.string_val_size();
      break;
    case DT_RESOURCE:
      *count = proto.resource_handle_val_size();
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto has unsupported dtype ", DataTypeString(proto.dtype())));
  }
  return CheckCount(proto, shape, *count, shape.num_elements());
}

// Integer dtypes stored in a wider typed field (int_val, int64_val, ...).
template <typename T, typename Field>
void FillNarrowed(const Field& field, int64_t count, int64_t n, T* out) {
  FillRepeating(
      count, n, [&](int64_t i) { return static_cast<T>(field.Get(i)); }, out);
}

template <typename T>
T FromBits(int32_t bits) {
  return Eigen::numext::bit_cast<T>(static_cast<uint16_t>(bits));
}

// Fills `t` from the typed field of `proto`'s dtype (`count` values; the
// last one repeats up to t's size).
void FillTypedValues(const TensorProto& proto, int64_t count, Tensor* t) {
  const int64_t n = t->NumElements();
  switch (proto.dtype()) {
    case DT_FLOAT:
      FillNarrowed(proto.float_val(), count, n, t->base<float>());
      break;
    case DT_DOUBLE:
      FillNarrowed(proto.double_val(), count, n, t->base<double>());
      break;
    case DT_INT32:
      FillNarrowed(proto.int_val(), count, n, t->base<int32_t>());
      break;
    case DT_INT16:
      FillNarrowed(proto.int_val(), count, n, t->base<int16_t>());
      break;
    case DT_INT8:
      FillNarrowed(proto.int_val(), count, n, t->base<int8_t>());
      break;
    case DT_UINT8:
      FillNarrowed(proto.int_val(), count, n, t->base<uint8_t>());
      break;
    case DT_UINT16:
      FillNarrowed(proto.int_val(), count, n, t->base<uint16_t>());
      break;
    case DT_INT64:
      FillNarrowed(proto.int64_val(), count, n, t->base<int64_t>());
      break;
    case DT_UINT32:
      FillNarrowed(proto.uint32_val(), count, n, t->base<uint32_t>());
      break;
    case DT_UINT64:
      FillNarrowed(proto.uint64_val(), count, n, t->base<uint64_t>());
      break;
    case DT_BOOL:
      FillNarrowed(proto.bool_val(), count, n, t->base<bool>());
      break;
    case DT_HALF:
      FillRepeating(
          count, n,
          [&](int64_t i) { return FromBits<half>(proto.half_val(i)); },
          t->base<half>());
      break;
    case DT_BFLOAT16:
      FillRepeating(
          count, n,
          [&](int64_t i) { return FromBits<bfloat16>(proto.half_val(i)); },
          t->base<bfloat16>());
      break;
    case DT_COMPLEX64:
      FillRepeating(
          count, n,
          [&](int64_t i) {
            return complex64(proto.scomplex_val(2 * i),
                             proto.scomplex_val(2 * i + 1));
          },
          t->base<complex64>());
      break;
    case DT_COMPLEX128:
      FillRepeating(
          count, n,
          [&](int64_t i) {
            return complex128(proto.dcomplex_val(2 * i),
                              proto.dcomplex_val(2 * i + 1));
          },
          t->base<complex128>());
      break;
    case DT_STRING:
      FillRepeating(
          count, n,
          [&](int64_t i) -> const std::string& { return proto.string_val(i); },
          t->base<std::string>());
      break;
    case DT_RESOURCE:
      FillRepeating(
          count, n,
          [&](int64_t i) -> const ResourceHandleProto& {
            return proto.resource_handle_val(i);
          },
          t->base<ResourceHandleProto>());
      break;
    default:
      break;  // Unreachable: TypedValueCount refused it.
  }
}

}  // namespace

absl::Status TensorFromProto(const TensorProto& proto, Tensor* out) {
  return TensorFromProto(cpu_allocator(), proto, out);
}

absl::Status TensorFromProto(Allocator* allocator, const TensorProto& proto,
                             Tensor* out) {
  TensorShape shape;
  absl::Status s = ProtoDtypeAndShape(proto, &shape);
  if (!s.ok()) return s;
  if (!proto.tensor_content().empty()) {
    return FromTensorContent(allocator, proto, shape, out);
  }
  // Typed fields: the value count is validated before allocating, and the
  // allocator's budget is asked before a single element is filled (a few
  // bytes of proto may declare billions of elements).
  int64_t count = 0;
  s = TypedValueCount(proto, shape, &count);
  if (!s.ok()) return s;
  Tensor t;
  SF_RETURN_IF_ERROR(Tensor::Allocate(allocator, proto.dtype(), shape, &t));
  FillTypedValues(proto, count, &t);
  *out = std::move(t);
  return absl::OkStatus();
}

void TensorToProto(const Tensor& t, TensorProto* proto,
                   bool use_tensor_content) {
  proto->Clear();
  proto->set_dtype(t.dtype());
  t.shape().AsProto(proto->mutable_tensor_shape());
  if (!t.IsInitialized()) return;
  const int64_t n = t.NumElements();
  if (use_tensor_content && DataTypeIsMemcpyable(t.dtype())) {
    proto->set_tensor_content(static_cast<const char*>(t.raw_data()),
                              t.TotalBytes());
    return;
  }
  switch (t.dtype()) {
    case DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) proto->add_float_val(t.base<float>()[i]);
      break;
    case DT_DOUBLE:
      for (int64_t i = 0; i < n; ++i)
        proto->add_double_val(t.base<double>()[i]);
      break;
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.base<int32_t>()[i]);
      break;
    case DT_INT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.base<int16_t>()[i]);
      break;
    case DT_INT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.base<int8_t>()[i]);
      break;
    case DT_UINT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.base<uint8_t>()[i]);
      break;
    case DT_UINT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.base<uint16_t>()[i]);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i)
        proto->add_int64_val(t.base<int64_t>()[i]);
      break;
    case DT_UINT32:
      for (int64_t i = 0; i < n; ++i)
        proto->add_uint32_val(t.base<uint32_t>()[i]);
      break;
    case DT_UINT64:
      for (int64_t i = 0; i < n; ++i)
        proto->add_uint64_val(t.base<uint64_t>()[i]);
      break;
    case DT_BOOL:
      for (int64_t i = 0; i < n; ++i) proto->add_bool_val(t.base<bool>()[i]);
      break;
    case DT_HALF:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(
            Eigen::numext::bit_cast<uint16_t>(t.base<half>()[i]));
      }
      break;
    case DT_BFLOAT16:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(
            Eigen::numext::bit_cast<uint16_t>(t.base<bfloat16>()[i]));
      }
      break;
    case DT_COMPLEX64:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_scomplex_val(t.base<complex64>()[i].real());
        proto->add_scomplex_val(t.base<complex64>()[i].imag());
      }
      break;
    case DT_COMPLEX128:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_dcomplex_val(t.base<complex128>()[i].real());
        proto->add_dcomplex_val(t.base<complex128>()[i].imag());
      }
      break;
    case DT_STRING:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_string_val(t.base<std::string>()[i]);
      }
      break;
    case DT_RESOURCE:
      for (int64_t i = 0; i < n; ++i) {
        *proto->add_resource_handle_val() = t.base<ResourceHandleProto>()[i];
      }
      break;
    default:
      break;
  }
}

namespace {

template <typename T>
bool ValuesEqual(const Tensor& a, const Tensor& b) {
  const T* x = a.base<const T>();
  const T* y = b.base<const T>();
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (!(x[i] == y[i])) return false;
  }
  return true;
}

}  // namespace

absl::Status CheckEncodable(const Tensor& t) {
  if (t.dtype() != DT_VARIANT) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("A DT_VARIANT tensor (shape ", t.shape().DebugString(),
                   ") cannot be sent to another process: variants have no wire "
                   "encoding"));
}

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized()) return true;
  if (a.dtype() == DT_RESOURCE) {
    const ResourceHandleProto* x = a.base<const ResourceHandleProto>();
    const ResourceHandleProto* y = b.base<const ResourceHandleProto>();
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (x[i].SerializeAsString() != y[i].SerializeAsString()) return false;
    }
    return true;
  }
  bool equal = false;
  SF_SWITCH_ALL_TYPES(a.dtype(), equal = ValuesEqual<T>(a, b), equal = false);
  return equal;
}

}  // namespace stepflow
