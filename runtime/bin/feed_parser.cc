#include "runtime/bin/feed_parser.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/bin/tensor_file.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_id.h"

namespace stepflow {
namespace {

// Splits nested brackets into leaf strings and a shape. Returns false on
// ragged or unbalanced input.
bool Flatten(absl::string_view s, std::vector<std::string>* leaves,
             std::vector<int64_t>* shape, std::string* error) {
  s = absl::StripAsciiWhitespace(s);
  if (s.empty() || s.front() != '[') {
    // A bare comma list is a vector; a single value is a scalar.
    std::vector<std::string> parts = absl::StrSplit(s, ',');
    if (parts.size() > 1) shape->push_back(parts.size());
    for (auto& p : parts)
      leaves->push_back(std::string(absl::StripAsciiWhitespace(p)));
    return true;
  }
  // Recursive descent over "[...]".
  struct Parser {
    absl::string_view s;
    size_t pos = 0;
    std::vector<std::string>* leaves;
    std::string* error;
    int depth = 0;  // Brackets open around the current element.
    void SkipWs() {
      while (pos < s.size() && absl::ascii_isspace(s[pos])) ++pos;
    }
    // Parses one element; returns its shape (empty for a leaf).
    bool Element(std::vector<int64_t>* shape) {
      SkipWs();
      if (pos < s.size() && s[pos] == '[') {
        // The rank is at most TensorShape::kMaxDimensions: deeper nesting
        // is refused before it can exhaust the stack.
        if (depth >= TensorShape::kMaxDimensions) {
          *error =
              absl::StrCat("nested deeper than ", TensorShape::kMaxDimensions,
                           " levels (the highest rank a tensor may have)");
          return false;
        }
        ++pos;
        ++depth;
        struct Leave {
          int* depth;
          ~Leave() { --*depth; }
        } leave{&depth};
        std::vector<int64_t> child_shape;
        int64_t count = 0;
        SkipWs();
        if (pos < s.size() && s[pos] == ']') {
          ++pos;
          shape->push_back(0);
          return true;
        }
        while (true) {
          std::vector<int64_t> cs;
          if (!Element(&cs)) return false;
          if (count == 0) {
            child_shape = cs;
          } else if (cs != child_shape) {
            *error = "ragged nested list";
            return false;
          }
          ++count;
          SkipWs();
          if (pos < s.size() && s[pos] == ',') {
            ++pos;
            continue;
          }
          if (pos < s.size() && s[pos] == ']') {
            ++pos;
            break;
          }
          *error = "expected ',' or ']'";
          return false;
        }
        shape->push_back(count);
        shape->insert(shape->end(), child_shape.begin(), child_shape.end());
        return true;
      }
      size_t start = pos;
      while (pos < s.size() && s[pos] != ',' && s[pos] != ']' && s[pos] != '[')
        ++pos;
      absl::string_view leaf =
          absl::StripAsciiWhitespace(s.substr(start, pos - start));
      if (leaf.empty()) {
        *error = "empty element";
        return false;
      }
      leaves->push_back(std::string(leaf));
      return true;
    }
  };
  Parser p{s, 0, leaves, error, 0};
  if (!p.Element(shape)) return false;
  p.SkipWs();
  if (p.pos != s.size()) {
    *error = "trailing characters after ']'";
    return false;
  }
  return true;
}

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    double d;
    if (!absl::SimpleAtod(s, &d)) return false;
    *out = static_cast<T>(d);
    return true;
  } else if constexpr (std::is_signed_v<T>) {
    int64_t v;
    if (!absl::SimpleAtoi(s, &v)) return false;
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return false;
    }
    *out = static_cast<T>(v);
    return true;
  } else {
    uint64_t v;
    if (!absl::SimpleAtoi(s, &v)) return false;
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    *out = static_cast<T>(v);
    return true;
  }
}

bool ParseLeaf(const std::string& s, DataType dtype, Tensor* t, int64_t i) {
  switch (dtype) {
#define SF_PARSE_CASE(ENUM, TYPE) \
  case ENUM:                      \
    return ParseNumber<TYPE>(s, &t->flat<TYPE>()(i));
    SF_PARSE_CASE(DT_FLOAT, float)
    SF_PARSE_CASE(DT_DOUBLE, double)
    SF_PARSE_CASE(DT_INT8, int8_t)
    SF_PARSE_CASE(DT_INT16, int16_t)
    SF_PARSE_CASE(DT_INT32, int32_t)
    SF_PARSE_CASE(DT_INT64, int64_t)
    SF_PARSE_CASE(DT_UINT8, uint8_t)
    SF_PARSE_CASE(DT_UINT16, uint16_t)
    SF_PARSE_CASE(DT_UINT32, uint32_t)
    SF_PARSE_CASE(DT_UINT64, uint64_t)
#undef SF_PARSE_CASE
    case DT_HALF: {
      float f;
      if (!ParseNumber<float>(s, &f)) return false;
      t->flat<half>()(i) = half(f);
      return true;
    }
    case DT_BFLOAT16: {
      float f;
      if (!ParseNumber<float>(s, &f)) return false;
      t->flat<bfloat16>()(i) = bfloat16(f);
      return true;
    }
    case DT_BOOL: {
      std::string l = absl::AsciiStrToLower(s);
      if (l == "true" || l == "1") {
        t->flat<bool>()(i) = true;
      } else if (l == "false" || l == "0") {
        t->flat<bool>()(i) = false;
      } else {
        return false;
      }
      return true;
    }
    case DT_STRING:
      t->flat<std::string>()(i) = s;
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Status ParseTensorValue(const std::string& value, DataType dtype,
                              Tensor* out) {
  if (!DataTypeIsSupported(dtype) || dtype == DT_RESOURCE ||
      dtype == DT_VARIANT || DataTypeIsComplex(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot parse a command-line value of dtype ", DataTypeString(dtype)));
  }
  std::vector<std::string> leaves;
  std::vector<int64_t> dims;
  std::string error;
  if (!Flatten(value, &leaves, &dims, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed value '", value, "': ", error));
  }
  TensorShape shape;
  absl::Status s = TensorShape::BuildTensorShape(dims, &shape);
  if (!s.ok()) return s;
  Tensor t;
  s = Tensor::Allocate(cpu_allocator(), dtype, shape, &t);
  if (!s.ok()) return s;
  if (t.NumElements() != static_cast<int64_t>(leaves.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed value '", value, "'"));
  }
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (!ParseLeaf(leaves[i], dtype, &t, i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", leaves[i], "' is not a valid ", DataTypeString(dtype)));
    }
  }
  *out = std::move(t);
  return absl::OkStatus();
}

absl::Status ParseFeed(const std::string& spec, const GraphDef& graph,
                       std::pair<std::string, Tensor>* feed,
                       const std::string& base_dir) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", spec, "' is not of the form name=value"));
  }
  const std::string name = spec.substr(0, eq);
  std::string value = spec.substr(eq + 1);
  const bool from_file =
      absl::StartsWith(value, "@") && !absl::StartsWith(value, "@@");
  if (absl::StartsWith(value, "@@")) value.erase(0, 1);
  const TensorId id = ParseTensorName(name);
  const NodeDef* node = nullptr;
  for (const NodeDef& n : graph.node()) {
    if (n.name() == id.node) {
      node = &n;
      break;
    }
  }
  if (node == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "feed '", name, "': no node named '", id.node, "' in the graph"));
  }
  DataType dtype = DT_INVALID;
  for (const char* attr : {"dtype", "T"}) {
    if (GetNodeAttr(*node, attr, &dtype).ok()) break;
  }
  if (from_file) {
    std::string path = value.substr(1);
    if (!path.empty() && path[0] != '/' && !base_dir.empty()) {
      path = absl::StrCat(base_dir, "/", path);
    }
    Tensor t;
    absl::Status s = ReadTensorFile(path, &t);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("feed '", name, "': ", s.message()));
    }
    if (dtype != DT_INVALID && t.dtype() != BaseType(dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", name, "': file '", path, "' holds ",
          DataTypeString(t.dtype()), " values but ", FormatNodeName(id.node),
          " (", node->op(), ") takes ", DataTypeString(BaseType(dtype)),
          "; convert the array first (e.g. numpy's astype)"));
    }
    *feed = {name, std::move(t)};
    return absl::OkStatus();
  }
  if (dtype == DT_INVALID) {
    return absl::InvalidArgumentError(absl::StrCat(
        "feed '", name, "': cannot tell the dtype of node ",
        FormatNodeName(id.node), " (", node->op(), "); feed a Placeholder"));
  }
  Tensor t;
  absl::Status s = ParseTensorValue(value, BaseType(dtype), &t);
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("feed '", name, "': ", s.message()));
  }
  // Like TensorFlow's C++ session, the placeholder's declared shape is not
  // enforced on feeds (kernels check what they need); it only shapes a flat
  // list that has exactly the declared number of elements.
  PartialTensorShape declared;
  if (GetNodeAttr(*node, "shape", &declared).ok() &&
      declared.IsFullyDefined() && !declared.IsCompatibleWith(t.shape())) {
    std::vector<int64_t> dims;
    for (int d = 0; d < declared.dims(); ++d)
      dims.push_back(declared.dim_size(d));
    TensorShape target(dims);
    Tensor reshaped;
    if (target.num_elements() == t.NumElements() &&
        reshaped.CopyFrom(t, target)) {
      t = std::move(reshaped);
    }
  }
  *feed = {name, std::move(t)};
  return absl::OkStatus();
}

}  // namespace stepflow
