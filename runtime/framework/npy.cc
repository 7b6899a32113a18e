#include "runtime/framework/npy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace stepflow {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr int kMaxRank = 254;  // TensorFlow's limit on a tensor's rank.

struct NumericCode {
  char kind;  // 'b', 'i', 'u', 'f', 'c'
  int size;
  DataType dtype;
};

constexpr NumericCode kNumeric[] = {
    {'b', 1, DT_BOOL},      {'i', 1, DT_INT8},        {'i', 2, DT_INT16},
    {'i', 4, DT_INT32},     {'i', 8, DT_INT64},       {'u', 1, DT_UINT8},
    {'u', 2, DT_UINT16},    {'u', 4, DT_UINT32},      {'u', 8, DT_UINT64},
    {'f', 2, DT_HALF},      {'f', 4, DT_FLOAT},       {'f', 8, DT_DOUBLE},
    {'c', 8, DT_COMPLEX64}, {'c', 16, DT_COMPLEX128},
};

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed .npy data: ", what));
}

// The value of `key` in NumPy's header dict literal, e.g. for "descr" in
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" gives
// "'<f4'". The header is written by numpy's own formatter, so values never
// contain the separators searched for (a quoted descr has no quotes inside,
// the shape tuple is the only value with parentheses).
bool HeaderValue(absl::string_view header, absl::string_view key,
                 absl::string_view* value) {
  for (const char quote : {'\'', '"'}) {
    const std::string pattern =
        absl::StrCat(std::string(1, quote), key, std::string(1, quote));
    size_t at = header.find(pattern);
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = header.substr(at + pattern.size());
    rest = absl::StripLeadingAsciiWhitespace(rest);
    if (!absl::ConsumePrefix(&rest, ":")) return false;
    rest = absl::StripLeadingAsciiWhitespace(rest);
    size_t end;
    if (absl::StartsWith(rest, "(")) {
      end = rest.find(')');
      if (end == absl::string_view::npos) return false;
      ++end;
    } else if (!rest.empty() && (rest[0] == '\'' || rest[0] == '"')) {
      end = rest.find(rest[0], 1);
      if (end == absl::string_view::npos) return false;
      ++end;
    } else {
      end = rest.find_first_of(",}");
      if (end == absl::string_view::npos) return false;
    }
    *value = absl::StripAsciiWhitespace(rest.substr(0, end));
    return true;
  }
  return false;
}

absl::Status ParseShape(absl::string_view text, std::vector<int64_t>* dims) {
  if (!absl::ConsumePrefix(&text, "(") || !absl::ConsumeSuffix(&text, ")")) {
    return Bad(absl::StrCat("shape is not a tuple: ", text));
  }
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;       // "(3,)" and "()"
    absl::ConsumeSuffix(&part, "L");  // Python 2 longs.
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0) {
      return Bad(absl::StrCat("bad dimension '", part, "' in the shape"));
    }
    dims->push_back(d);
    if (dims->size() > kMaxRank) {
      return absl::InvalidArgumentError(
          absl::StrCat(".npy array has more than ", kMaxRank, " dimensions"));
    }
  }
  return absl::OkStatus();
}

// Appends `code_point` as UTF-8; false for values that are not Unicode
// scalar values.
bool AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x110000) {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    return false;
  }
  return true;
}

uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

absl::Status EncodeNpy(const Tensor& tensor, std::string* out) {
  if (!tensor.IsInitialized()) {
    return absl::InvalidArgumentError(
        "cannot write an uninitialized tensor as .npy");
  }
  const DataType dtype = tensor.dtype();
  std::string descr;
  size_t string_width = 0;
  const std::string* strings =
      dtype == DT_STRING ? tensor.base<const std::string>() : nullptr;
  const int64_t n = tensor.NumElements();
  if (dtype == DT_STRING) {
    for (int64_t i = 0; i < n; ++i) {
      string_width = std::max(string_width, strings[i].size());
    }
    // NumPy has no zero-width bytes dtype: an array of empty strings is |S1.
    string_width = std::max<size_t>(string_width, 1);
    descr = absl::StrCat("|S", string_width);
  } else {
    for (const NumericCode& c : kNumeric) {
      if (c.dtype == dtype) {
        descr = absl::StrCat(c.size == 1 ? "|" : "<", std::string(1, c.kind),
                             c.size);
      }
    }
    if (descr.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a ", DataTypeString(dtype), " tensor has no .npy encoding"));
    }
  }
  std::string shape = "(";
  for (int d = 0; d < tensor.dims(); ++d) {
    absl::StrAppend(&shape, tensor.dim_size(d), tensor.dims() == 1 ? "," : "",
                    d + 1 < tensor.dims() ? ", " : "");
  }
  shape += ")";
  std::string header =
      absl::StrCat("{'descr': '", descr,
                   "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  const size_t unpadded = kMagicLen + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 0xFFFF) {
    return absl::InvalidArgumentError(
        ".npy header too long for the tensor's rank");
  }
  out->append(kMagic, kMagicLen);
  out->push_back('\x01');
  out->push_back('\x00');
  out->push_back(static_cast<char>(header.size() & 0xFF));
  out->push_back(static_cast<char>(header.size() >> 8));
  out->append(header);
  if (dtype == DT_STRING) {
    for (int64_t i = 0; i < n; ++i) {
      out->append(strings[i]);
      out->append(string_width - strings[i].size(), '\0');
    }
  } else {
    out->append(static_cast<const char*>(tensor.raw_data()),
                tensor.TotalBytes());
  }
  return absl::OkStatus();
}

namespace {

// What the header says: the dtype descriptor (without quotes), the shape,
// and where the data starts.
struct NpyHeader {
  absl::string_view descr;
  TensorShape shape;
  absl::string_view data;
};

absl::Status ParseHeader(absl::string_view bytes, NpyHeader* out) {
  if (bytes.size() < kMagicLen + 4 ||
      bytes.substr(0, kMagicLen) != absl::string_view(kMagic, kMagicLen)) {
    return Bad("missing the \\x93NUMPY magic");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[kMagicLen]);
  size_t header_len, prefix;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad("truncated header");
    header_len = LoadLe32(bytes.data() + 8);
    prefix = 12;
  } else {
    return Bad(absl::StrCat("unknown format version ", major));
  }
  if (header_len > bytes.size() - prefix) return Bad("truncated header");
  const absl::string_view header = bytes.substr(prefix, header_len);
  out->data = bytes.substr(prefix + header_len);

  absl::string_view fortran, shape_text;
  if (!HeaderValue(header, "descr", &out->descr) ||
      !HeaderValue(header, "fortran_order", &fortran) ||
      !HeaderValue(header, "shape", &shape_text)) {
    return Bad("header lacks descr, fortran_order or shape");
  }
  if (fortran != "False") {
    return absl::InvalidArgumentError(
        ".npy array is in Fortran order; save it with "
        "numpy.ascontiguousarray first");
  }
  absl::string_view& descr = out->descr;
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"')) {
    return Bad(absl::StrCat("descr is not a simple dtype: ", descr));
  }
  descr = descr.substr(1, descr.size() - 2);
  std::vector<int64_t> dims;
  absl::Status s = ParseShape(shape_text, &dims);
  if (!s.ok()) return s;
  return TensorShape::BuildTensorShape(dims, &out->shape);
}

// A descriptor such as "<f4": kind 'f', item size 4 (UTF-32 'U' items are
// four bytes per character).
struct NpyDtype {
  char kind;
  int64_t size;
  int64_t itemsize;
};

absl::Status ParseDescr(absl::string_view descr, NpyDtype* out) {
  if (descr.size() < 3) return Bad(absl::StrCat("unknown dtype '", descr, "'"));
  const char order = descr[0];
  out->kind = descr[1];
  if (!absl::SimpleAtoi(descr.substr(2), &out->size) || out->size < 0) {
    return Bad(absl::StrCat("unknown dtype '", descr, "'"));
  }
  if (order == '>') {
    return absl::InvalidArgumentError(absl::StrCat(
        ".npy array is big-endian ('", descr, "'); convert it with astype('<",
        descr.substr(1), "') first"));
  }
  if (order != '<' && order != '|' && order != '=') {
    return Bad(absl::StrCat("unknown byte order in '", descr, "'"));
  }
  out->itemsize = out->kind == 'U' ? out->size * 4 : out->size;
  return absl::OkStatus();
}

// The data must hold exactly n * itemsize bytes: checked before anything is
// allocated, so a file's own size bounds what decoding it allocates.
absl::Status CheckDataSize(const NpyHeader& h, const NpyDtype& d) {
  const int64_t n = h.shape.num_elements();
  if (d.itemsize == 0 && n > 0) {
    return Bad(absl::StrCat("zero-width dtype '", h.descr, "'"));
  }
  const uint64_t bytes = h.data.size();
  if (n > 0 && (static_cast<uint64_t>(d.itemsize) > bytes / n ||
                static_cast<uint64_t>(n) * d.itemsize != bytes)) {
    return Bad(absl::StrCat("data holds ", bytes, " bytes; shape ",
                            h.shape.DebugString(), " of '", h.descr, "' needs ",
                            n, " x ", d.itemsize));
  }
  if (n == 0 && bytes != 0) {
    return Bad(absl::StrCat("data holds ", bytes, " bytes for an empty array"));
  }
  return absl::OkStatus();
}

// Bytes ('S', trailing NULs dropped) or UTF-32 ('U', decoded to UTF-8).
absl::Status DecodeStrings(const NpyHeader& h, const NpyDtype& d,
                           Tensor* tensor) {
  Tensor t(DT_STRING, h.shape);
  std::string* flat = t.base<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const char* p = h.data.data() + i * d.itemsize;
    size_t len = static_cast<size_t>(d.size);
    if (d.kind == 'S') {
      while (len > 0 && p[len - 1] == '\0') --len;
      flat[i].assign(p, len);
      continue;
    }
    while (len > 0 && LoadLe32(p + 4 * (len - 1)) == 0) --len;
    for (size_t c = 0; c < len; ++c) {
      if (!AppendUtf8(LoadLe32(p + 4 * c), &flat[i])) {
        return Bad(absl::StrCat("element ", i, " is not valid UTF-32 text"));
      }
    }
  }
  *tensor = std::move(t);
  return absl::OkStatus();
}

absl::Status DecodeNumbers(const NpyHeader& h, DataType dtype, Tensor* tensor) {
  Tensor t(dtype, h.shape);
  if (!h.data.empty()) std::memcpy(t.raw_data(), h.data.data(), h.data.size());
  if (dtype == DT_BOOL) {
    const uint8_t* b = static_cast<const uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (b[i] > 1)
        return Bad(absl::StrCat("bool element ", i, " is not 0 or 1"));
    }
  }
  *tensor = std::move(t);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeNpy(absl::string_view bytes, Tensor* tensor) {
  NpyHeader header;
  absl::Status s = ParseHeader(bytes, &header);
  if (!s.ok()) return s;
  NpyDtype dtype;
  s = ParseDescr(header.descr, &dtype);
  if (!s.ok()) return s;
  s = CheckDataSize(header, dtype);
  if (!s.ok()) return s;
  if (dtype.kind == 'S' || dtype.kind == 'U') {
    return DecodeStrings(header, dtype, tensor);
  }
  for (const NumericCode& c : kNumeric) {
    if (c.kind == dtype.kind && c.size == dtype.size) {
      return DecodeNumbers(header, c.dtype, tensor);
    }
  }
  if (dtype.kind == 'O') {
    return absl::InvalidArgumentError(
        ".npy object arrays (pickled) are not supported; save strings as "
        "bytes (dtype 'S') or str (dtype 'U')");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      ".npy dtype '", header.descr, "' has no stepflow tensor type"));
}

}  // namespace stepflow
