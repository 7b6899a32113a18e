#include "runtime/kernels/example_parser.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "proto/example.pb.h"

namespace stepflow {
namespace {

// One example's values of a feature, viewed without copying.
struct Values {
  const Feature* feature = nullptr;  // Null: missing from the example.
  int64_t size = 0;

  bool missing() const { return feature == nullptr; }
};

const char* TypeName(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
      return "float";
    case DT_INT64:
      return "int64";
    default:
      return "string";
  }
}

DataType KindType(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return DT_FLOAT;
    case Feature::kInt64List:
      return DT_INT64;
    case Feature::kBytesList:
      return DT_STRING;
    default:
      return DT_INVALID;
  }
}

int64_t KindSize(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return f.float_list().value_size();
    case Feature::kInt64List:
      return f.int64_list().value_size();
    case Feature::kBytesList:
      return f.bytes_list().value_size();
    default:
      return 0;
  }
}

// Copies `count` values of `f` starting at `from` into `dst` at `at`.
void CopyValues(const Feature& f, int64_t from, int64_t count, Tensor* dst,
                int64_t at) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      std::copy_n(f.float_list().value().begin() + from, count,
                  dst->base<float>() + at);
      break;
    case Feature::kInt64List:
      std::copy_n(f.int64_list().value().begin() + from, count,
                  dst->base<int64_t>() + at);
      break;
    case Feature::kBytesList:
      std::copy_n(f.bytes_list().value().begin() + from, count,
                  dst->base<std::string>() + at);
      break;
    default:
      break;
  }
}

class Parser {
 public:
  Parser(const ExampleParseConfig& config, const std::string* names,
         bool batched, const OutputAllocator& alloc)
      : config_(config), names_(names), batched_(batched), alloc_(alloc) {}

  absl::Status Run(const std::string* serialized, int64_t n) {
    examples_.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      if (!examples_[i].ParseFromString(serialized[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Could not parse example input, value: '", serialized[i], "'"));
      }
    }
    const int ns = static_cast<int>(config_.sparse.size());
    const int nd = static_cast<int>(config_.dense.size());
    for (int s = 0; s < ns; ++s) {
      absl::Status st = Sparse(s, ns);
      if (!st.ok()) return st;
    }
    for (int d = 0; d < nd; ++d) {
      absl::Status st = Dense(d, 3 * ns + d);
      if (!st.ok()) return st;
    }
    const int nr = static_cast<int>(config_.ragged.size());
    for (int r = 0; r < nr; ++r) {
      absl::Status st = Ragged(r, 3 * ns + nd + r, 3 * ns + nd + nr + r);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }

 private:
  std::string Name(int64_t i) const {
    return names_ != nullptr && !names_[i].empty() ? names_[i] : "<unknown>";
  }

  std::string Where(const std::string& key, int64_t i) const {
    return absl::StrCat("Name: ", Name(i), ", Key: ", key, ", Index: ", i,
                        ".  ");
  }

  // The values of `key` in example i, checked against `dtype`.
  absl::Status Lookup(int64_t i, const std::string& key, DataType dtype,
                      Values* v) const {
    *v = Values();
    const auto& map = examples_[i].features().feature();
    auto it = map.find(key);
    if (it == map.end()) return absl::OkStatus();
    const DataType actual = KindType(it->second);
    // A Feature with no value list counts as missing.
    if (actual == DT_INVALID) return absl::OkStatus();
    if (actual != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(key, i), "Data types don't match. Data type: ",
          TypeName(actual), " but expected type: ", TypeName(dtype)));
    }
    v->feature = &it->second;
    v->size = KindSize(it->second);
    return absl::OkStatus();
  }

  absl::Status Sparse(int s, int ns) {
    const auto& cfg = config_.sparse[s];
    const int64_t n = static_cast<int64_t>(examples_.size());
    std::vector<Values> vals(n);
    int64_t total = 0, widest = 0;
    for (int64_t i = 0; i < n; ++i) {
      absl::Status st = Lookup(i, cfg.key, cfg.dtype, &vals[i]);
      if (!st.ok()) return st;
      total += vals[i].size;
      widest = std::max(widest, vals[i].size);
    }
    const int rank = batched_ ? 2 : 1;
    Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
    absl::Status st = alloc_(s, TensorShape({total, rank}), &indices);
    if (st.ok()) st = alloc_(ns + s, TensorShape({total}), &values);
    if (st.ok()) st = alloc_(2 * ns + s, TensorShape({rank}), &shape);
    if (!st.ok()) return st;
    int64_t* idx = indices->base<int64_t>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (vals[i].missing()) continue;
      CopyValues(*vals[i].feature, 0, vals[i].size, values, k);
      for (int64_t j = 0; j < vals[i].size; ++j, ++k) {
        if (batched_) *idx++ = i;
        *idx++ = j;
      }
    }
    int64_t* sh = shape->base<int64_t>();
    if (batched_) *sh++ = n;
    *sh = widest;
    return absl::OkStatus();
  }

  absl::Status Dense(int d, int out_index) {
    const auto& cfg = config_.dense[d];
    const int64_t n = static_cast<int64_t>(examples_.size());
    const bool varlen = cfg.shape.dims() > 0 && cfg.shape.dim_size(0) == -1;
    // Elements per row (the shape without its first dim when varlen).
    int64_t stride = 1;
    for (int k = varlen ? 1 : 0; k < cfg.shape.dims(); ++k) {
      stride *= cfg.shape.dim_size(k);
    }
    std::vector<Values> vals(n);
    int64_t rows = 0;
    for (int64_t i = 0; i < n; ++i) {
      absl::Status st = Lookup(i, cfg.key, cfg.dtype, &vals[i]);
      if (!st.ok()) return st;
      const Values& v = vals[i];
      if (v.missing()) {
        if (!varlen && cfg.default_value.NumElements() == 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Name: ", Name(i), ", Feature: ", cfg.key, " (data type: ",
              TypeName(cfg.dtype), ") is required but could not be found."));
        }
        continue;
      }
      if (varlen) {
        if (stride == 0 ? v.size != 0 : v.size % stride != 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(cfg.key, i), "Number of ", TypeName(cfg.dtype),
              " values is not a multiple of stride length. Saw ", v.size,
              " values but output shape is: ", cfg.shape.DebugString()));
        }
        if (stride > 0) rows = std::max(rows, v.size / stride);
      } else if (v.size != stride) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(cfg.key, i), "Number of ", TypeName(cfg.dtype),
                         " values != expected.  Values size: ", v.size,
                         " but output shape: ", cfg.shape.DebugString()));
      }
    }
    TensorShape shape;
    if (batched_) shape.AddDim(n);
    for (int k = 0; k < cfg.shape.dims(); ++k) {
      shape.AddDim(varlen && k == 0 ? rows : cfg.shape.dim_size(k));
    }
    Tensor* out = nullptr;
    absl::Status st = alloc_(out_index, shape, &out);
    if (!st.ok()) return st;
    const int64_t per_example = n == 0 ? 0 : shape.num_elements() / n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = i * per_example;
      const Values& v = vals[i];
      if (varlen) {
        FillDefault(cfg, out, at, per_example);
        if (!v.missing()) CopyValues(*v.feature, 0, v.size, out, at);
      } else if (v.missing()) {
        CopyDefault(cfg, out, at);
      } else {
        CopyValues(*v.feature, 0, v.size, out, at);
      }
    }
    return absl::OkStatus();
  }

  // Fills `count` elements at `at` with the (scalar) default.
  static void FillDefault(const ExampleParseConfig::Dense& cfg, Tensor* out,
                          int64_t at, int64_t count) {
    if (cfg.default_value.NumElements() == 0) return;
    switch (cfg.dtype) {
      case DT_FLOAT:
        std::fill_n(out->base<float>() + at, count,
                    cfg.default_value.base<const float>()[0]);
        break;
      case DT_INT64:
        std::fill_n(out->base<int64_t>() + at, count,
                    cfg.default_value.base<const int64_t>()[0]);
        break;
      default:
        std::fill_n(out->base<std::string>() + at, count,
                    cfg.default_value.base<const std::string>()[0]);
        break;
    }
  }

  static void CopyDefault(const ExampleParseConfig::Dense& cfg, Tensor* out,
                          int64_t at) {
    const Tensor& def = cfg.default_value;
    const int64_t count = def.NumElements();
    switch (cfg.dtype) {
      case DT_FLOAT:
        std::copy_n(def.base<const float>(), count, out->base<float>() + at);
        break;
      case DT_INT64:
        std::copy_n(def.base<const int64_t>(), count,
                    out->base<int64_t>() + at);
        break;
      default:
        std::copy_n(def.base<const std::string>(), count,
                    out->base<std::string>() + at);
        break;
    }
  }

  absl::Status Ragged(int r, int values_index, int splits_index) {
    const auto& cfg = config_.ragged[r];
    const int64_t n = static_cast<int64_t>(examples_.size());
    std::vector<Values> vals(n);
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      absl::Status st = Lookup(i, cfg.key, cfg.dtype, &vals[i]);
      if (!st.ok()) return st;
      total += vals[i].size;
    }
    Tensor *values = nullptr, *splits = nullptr;
    absl::Status st = alloc_(values_index, TensorShape({total}), &values);
    if (st.ok()) {
      st = alloc_(splits_index, TensorShape({batched_ ? n + 1 : 0}), &splits);
    }
    if (!st.ok()) return st;
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (batched_) SetSplit(splits, cfg.splits_dtype, i, k);
      if (vals[i].missing()) continue;
      CopyValues(*vals[i].feature, 0, vals[i].size, values, k);
      k += vals[i].size;
    }
    if (batched_) SetSplit(splits, cfg.splits_dtype, n, k);
    return absl::OkStatus();
  }

  static void SetSplit(Tensor* splits, DataType dtype, int64_t i,
                       int64_t value) {
    if (dtype == DT_INT32) {
      splits->base<int32_t>()[i] = static_cast<int32_t>(value);
    } else {
      splits->base<int64_t>()[i] = value;
    }
  }

  const ExampleParseConfig& config_;
  const std::string* names_;
  const bool batched_;
  const OutputAllocator& alloc_;
  std::vector<Example> examples_;
};

}  // namespace

absl::Status ParseExamples(const ExampleParseConfig& config,
                           const std::string* serialized, int64_t n,
                           const std::string* names, bool batched,
                           const OutputAllocator& alloc) {
  Parser parser(config, names, batched, alloc);
  return parser.Run(serialized, n);
}

}  // namespace stepflow
