#include "runtime/kernels/tensor_summary.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

// `digits` significant digits, or `more` when that does not read back.
template <typename F>
std::string ShortestFloat(F v, int digits, int more) {
  char buf[64];
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  const bool exact = std::is_same_v<F, float>
                         ? std::strtof(buf, nullptr) == v
                         : std::strtod(buf, nullptr) == static_cast<double>(v);
  if (!exact) {
    std::snprintf(buf, sizeof(buf), "%.*g", more, static_cast<double>(v));
  }
  return buf;
}

template <typename T>
std::string Element(const T& v, bool quote_strings) {
  if constexpr (std::is_same_v<T, std::string>) {
    return quote_strings ? absl::StrCat("\"", absl::Utf8SafeCEscape(v), "\"")
                         : v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, double>) {
    return ShortestFloat(v, DBL_DIG, DBL_DIG + 2);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half> ||
                       std::is_same_v<T, bfloat16>) {
    return ShortestFloat(static_cast<float>(v), FLT_DIG, FLT_DIG + 3);
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}
template <>
std::string Element<uint64_t>(const uint64_t& v, bool) {
  return absl::StrCat(v);
}

template <typename T>
void PrintDim(int dim, const std::vector<int64_t>& shape, int64_t limit,
              const T* data, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int rank = static_cast<int>(shape.size());
  const int64_t n = shape[dim];
  if (dim == rank - 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (*index >= limit) {
        if (dim != 0) out->append("...");
        return;
      }
      if (i > 0) out->append(" ");
      out->append(Element(data[(*index)++], false));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    bool opened = false;
    if (*index < limit) {
      out->append("[");
      opened = true;
    }
    PrintDim(dim + 1, shape, limit, data, index, out);
    if (*index < limit || opened) out->append("]");
  }
}

void DimSpacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    out->append(" ");
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

template <typename T>
void PrintDimV2(int dim, const std::vector<int64_t>& shape, int64_t ends,
                const T* data, int64_t offset, std::string* out) {
  const int rank = static_cast<int>(shape.size());
  if (dim == rank) {
    out->append(Element(data[offset], true));
    return;
  }
  out->append("[");
  const int64_t n = shape[dim];
  const int64_t tail_start = std::max(ends, n - ends);
  int64_t stride = 1;
  for (int d = dim + 1; d < rank; ++d) stride *= shape[d];
  for (int64_t i = 0; i < ends && i < n; ++i) {
    if (i > 0) DimSpacing(dim, rank, out);
    PrintDimV2(dim + 1, shape, ends, data, offset + stride * i, out);
  }
  if (n > 2 * ends) {
    DimSpacing(dim, rank, out);
    out->append("...");
  }
  for (int64_t i = tail_start; i < n; ++i) {
    DimSpacing(dim, rank, out);
    PrintDimV2(dim + 1, shape, ends, data, offset + stride * i, out);
  }
  out->append("]");
}

template <typename T>
std::string SummarizeArray(const Tensor& t, int64_t limit, bool v2) {
  const T* data = t.base<const T>();
  const int64_t n = t.NumElements();
  std::string out;
  if (t.dims() == 0) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out.append(" ");
      out.append(Element(data[i], v2));
    }
    if (n > limit) out.append("...");
    return out;
  }
  const std::vector<int64_t> shape(t.shape().dim_sizes().begin(),
                                   t.shape().dim_sizes().end());
  if (v2) {
    PrintDimV2(0, shape, limit, data, 0, &out);
  } else {
    int64_t index = 0;
    PrintDim(0, shape, limit, data, &index, &out);
    if (n > limit) out.append("...");
  }
  return out;
}

// Types TensorFlow prints as "?" (or "<summary>" for resources, variants).
std::string SummarizeOther(const Tensor& t, int64_t max_entries, int64_t limit,
                           bool v2) {
  std::string out;
  if (v2 && t.dims() > 0) out.append("[");
  for (int64_t i = 0; i < limit; ++i) {
    if (i > 0) out.append(" ");
    out.append("?");
  }
  if (max_entries < t.NumElements()) out.append("...");
  if (v2 && t.dims() > 0) out.append("]");
  return out;
}

std::string Summarize(const Tensor& t, int64_t max_entries, bool v2) {
  const int64_t n = t.NumElements();
  if (max_entries < 0) max_entries = n;
  const int64_t limit = std::min(max_entries, n);
  // TensorFlow prints nothing at all for bools when no value is shown.
  if (t.dtype() == DT_BOOL && limit == 0) return "";
  switch (t.dtype()) {
#define SF_SUMMARIZE_CASE(T)     \
  case DataTypeToEnum<T>::value: \
    return SummarizeArray<T>(t, limit, v2);
    SF_SUMMARIZE_CASE(float)
    SF_SUMMARIZE_CASE(double)
    SF_SUMMARIZE_CASE(half)
    SF_SUMMARIZE_CASE(bfloat16)
    SF_SUMMARIZE_CASE(int8_t)
    SF_SUMMARIZE_CASE(int16_t)
    SF_SUMMARIZE_CASE(int32_t)
    SF_SUMMARIZE_CASE(int64_t)
    SF_SUMMARIZE_CASE(uint8_t)
    SF_SUMMARIZE_CASE(uint16_t)
    SF_SUMMARIZE_CASE(uint32_t)
    SF_SUMMARIZE_CASE(uint64_t)
    SF_SUMMARIZE_CASE(bool)
    SF_SUMMARIZE_CASE(std::string)
#undef SF_SUMMARIZE_CASE
    default:
      return SummarizeOther(t, max_entries, limit, v2);
  }
}

}  // namespace

std::string SummarizeForPrint(const Tensor& t, int64_t max_entries) {
  return Summarize(t, max_entries, false);
}

std::string SummarizeForFormat(const Tensor& t, int64_t max_entries) {
  return Summarize(t, max_entries, true);
}

}  // namespace stepflow
