#include "runtime/kernels/bundle_format.h"

#include <cstring>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/kernels/crc32c.h"
#include "runtime/kernels/varint.h"

// Tensor bytes are copied in host order, which the format defines as
// little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the tensor bundle code assumes a little-endian host");

namespace stepflow {
namespace bundle {
namespace {

// Extends `crc` by a string length as the checksum counts it.
uint32_t ExtendByLength(uint32_t crc, uint64_t length) {
  if (length <= std::numeric_limits<uint32_t>::max()) {
    const uint32_t l32 = static_cast<uint32_t>(length);
    return crc32c::Extend(crc, &l32, sizeof(l32));
  }
  return crc32c::Extend(crc, &length, sizeof(length));
}

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

}  // namespace

std::string IndexPath(absl::string_view prefix) {
  return absl::StrCat(prefix, ".index");
}

std::string DataPath(absl::string_view prefix, int shard, int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

bool IsBundleFileName(absl::string_view name) {
  if (absl::EndsWith(name, ".index")) return name.size() > 6;
  // "<prefix>.data-NNNNN-of-NNNNN"
  const size_t data = name.rfind(".data-");
  if (data == absl::string_view::npos || data == 0) return false;
  absl::string_view rest = name.substr(data + 6);
  const size_t of = rest.find("-of-");
  return of != absl::string_view::npos && AllDigits(rest.substr(0, of)) &&
         AllDigits(rest.substr(of + 4));
}

bool IsSavableType(DataType dtype) {
  return DataTypeIsMemcpyable(dtype) || dtype == DT_STRING;
}

TensorAllocator DefaultAllocator() {
  return [](DataType dtype, const TensorShape& shape, Tensor* out) {
    return Tensor::Allocate(cpu_allocator(), dtype, shape, out);
  };
}

uint32_t EncodeTensor(const Tensor& tensor, std::string* out) {
  if (tensor.dtype() != DT_STRING) {
    absl::string_view bytes(static_cast<const char*>(tensor.raw_data()),
                            tensor.TotalBytes());
    out->append(bytes.data(), bytes.size());
    return crc32c::Value(bytes);
  }
  const std::string* elems = tensor.base<const std::string>();
  const int64_t n = tensor.NumElements();
  uint32_t crc = 0;
  for (int64_t i = 0; i < n; ++i) {
    PutVarint64(elems[i].size(), out);
    crc = ExtendByLength(crc, elems[i].size());
  }
  const uint32_t lengths_crc = crc32c::Mask(crc);
  out->append(reinterpret_cast<const char*>(&lengths_crc), 4);
  crc = crc32c::Extend(crc, &lengths_crc, 4);
  for (int64_t i = 0; i < n; ++i) {
    out->append(elems[i]);
    crc = crc32c::Extend(crc, elems[i].data(), elems[i].size());
  }
  return crc;
}

absl::Status DecodeTensor(absl::string_view bytes, uint32_t masked_crc,
                          Tensor* out) {
  const int64_t n = out->NumElements();
  if (out->dtype() != DT_STRING) {
    if (bytes.size() != out->TotalBytes()) {
      return absl::DataLossError(absl::StrCat(
          bytes.size(), " bytes where ", out->TotalBytes(), " were expected"));
    }
    if (!bytes.empty()) {
      std::memcpy(out->raw_data(), bytes.data(), bytes.size());
    }
    return CheckTensorBytes(*out, masked_crc);
  }
  // Strings: lengths, their checksum, then the bytes.
  absl::string_view in = bytes;
  std::vector<uint64_t> lengths(n);
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!GetVarint64(&in, &lengths[i])) {
      return absl::DataLossError(
          absl::StrCat("string element ", i, "'s length is truncated"));
    }
    crc = ExtendByLength(crc, lengths[i]);
    if (lengths[i] > bytes.size() - total) {
      return absl::DataLossError(
          absl::StrCat("string element ", i, " of length ", lengths[i],
                       " runs past the tensor's ", bytes.size(), " bytes"));
    }
    total += lengths[i];
  }
  if (in.size() < 4) return absl::DataLossError("string lengths truncated");
  uint32_t lengths_crc;
  std::memcpy(&lengths_crc, in.data(), 4);
  if (lengths_crc != crc32c::Mask(crc)) {
    return absl::DataLossError("checksum mismatch in the string lengths");
  }
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  if (in.size() != total) {
    return absl::DataLossError(absl::StrCat("string bytes are ", in.size(),
                                            " long, the lengths add up to ",
                                            total));
  }
  crc = crc32c::Extend(crc, in.data(), in.size());
  if (crc32c::Mask(crc) != masked_crc) {
    return absl::DataLossError(
        absl::StrFormat("checksum mismatch (stored 0x%08x, computed 0x%08x)",
                        masked_crc, crc32c::Mask(crc)));
  }
  std::string* elems = out->base<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    elems[i].assign(in.data(), lengths[i]);
    in.remove_prefix(lengths[i]);
  }
  return absl::OkStatus();
}

absl::Status CheckTensorBytes(const Tensor& tensor, uint32_t masked_crc) {
  absl::string_view bytes(static_cast<const char*>(tensor.raw_data()),
                          tensor.TotalBytes());
  const uint32_t crc = crc32c::Value(bytes);
  if (crc32c::Mask(crc) != masked_crc) {
    return absl::DataLossError(
        absl::StrFormat("checksum mismatch (stored 0x%08x, computed 0x%08x)",
                        masked_crc, crc32c::Mask(crc)));
  }
  if (tensor.dtype() == DT_BOOL) {
    for (char c : bytes) {
      if (c != 0 && c != 1) {
        return absl::DataLossError("a bool byte other than 0 or 1");
      }
    }
  }
  return absl::OkStatus();
}

bool SizeMatches(DataType dtype, int64_t num_elements, uint64_t size) {
  const uint64_t n = static_cast<uint64_t>(num_elements);
  // Strings: at least a one-byte length per element and the checksum.
  if (dtype == DT_STRING) return size >= 4 && n <= size - 4;
  const uint64_t elem = static_cast<uint64_t>(DataTypeSize(dtype));
  return elem != 0 && size % elem == 0 && size / elem == n;
}

}  // namespace bundle
}  // namespace stepflow
