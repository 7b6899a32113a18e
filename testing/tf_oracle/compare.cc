#include "testing/tf_oracle/compare.h"

#include <cmath>
#include <complex>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "testing/tf_oracle/tolerance.h"

namespace stepflow {
namespace oracle {
namespace {

absl::Status Differ(const std::string& msg) {
  return absl::FailedPreconditionError(msg);
}

std::string Index(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t n = shape.dim_size(d);
    idx[d] = n > 0 ? flat % n : 0;
    flat = n > 0 ? flat / n : 0;
  }
  return absl::StrCat("[", absl::StrJoin(idx, ","), "]");
}

bool Close(double want, double got, const Tolerance& tol) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return want == got;
  return std::fabs(got - want) <= tol.rtol * std::fabs(want) + tol.atol;
}

template <typename T>
double AsDouble(const T& v) {
  return static_cast<double>(v);
}

template <typename T>
absl::Status CompareReal(const Tensor& want, const Tensor& got,
                         const Tolerance& tol, const std::string& what) {
  const T* w = want.base<const T>();
  const T* g = got.base<const T>();
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double wv = AsDouble(w[i]), gv = AsDouble(g[i]);
    if (!Close(wv, gv, tol)) {
      return Differ(absl::StrCat(what, ": element ", Index(want.shape(), i),
                                 ": stepflow ", gv, ", TensorFlow ", wv,
                                 " (|diff| ", std::fabs(gv - wv), " > rtol ",
                                 tol.rtol, " * |want| + atol ", tol.atol, ")"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status CompareComplex(const Tensor& want, const Tensor& got,
                            const Tolerance& tol, const std::string& what) {
  const T* w = want.base<const T>();
  const T* g = got.base<const T>();
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (!Close(w[i].real(), g[i].real(), tol) ||
        !Close(w[i].imag(), g[i].imag(), tol)) {
      return Differ(absl::StrCat(what, ": element ", Index(want.shape(), i),
                                 ": stepflow (", g[i].real(), ",", g[i].imag(),
                                 "), TensorFlow (", w[i].real(), ",",
                                 w[i].imag(), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompareTensors(const Tensor& want, const Tensor& got,
                            const GraphDef& graph, const std::string& what) {
  if (want.dtype() != got.dtype()) {
    return Differ(absl::StrCat(what, ": dtype: stepflow ",
                               DataTypeString(got.dtype()), ", TensorFlow ",
                               DataTypeString(want.dtype())));
  }
  if (want.shape() != got.shape()) {
    return Differ(absl::StrCat(what, ": shape: stepflow ",
                               got.shape().DebugString(), ", TensorFlow ",
                               want.shape().DebugString()));
  }
  const Tolerance tol = ToleranceFor(graph, want.dtype());
  switch (want.dtype()) {
    case DT_FLOAT:
      return CompareReal<float>(want, got, tol, what);
    case DT_DOUBLE:
      return CompareReal<double>(want, got, tol, what);
    case DT_HALF:
      return CompareReal<Eigen::half>(want, got, tol, what);
    case DT_BFLOAT16:
      return CompareReal<Eigen::bfloat16>(want, got, tol, what);
    case DT_COMPLEX64:
      return CompareComplex<complex64>(want, got, tol, what);
    case DT_COMPLEX128:
      return CompareComplex<complex128>(want, got, tol, what);
    case DT_STRING: {
      const std::string* w = want.base<const std::string>();
      const std::string* g = got.base<const std::string>();
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        if (w[i] != g[i]) {
          return Differ(absl::StrCat(what, ": element ", Index(want.shape(), i),
                                     ": stepflow \"", absl::CEscape(g[i]),
                                     "\", TensorFlow \"", absl::CEscape(w[i]),
                                     "\""));
        }
      }
      return absl::OkStatus();
    }
    default:
      break;
  }
  if (!DataTypeIsMemcpyable(want.dtype())) {
    return Differ(absl::StrCat(what, ": cannot compare ",
                               DataTypeString(want.dtype()), " values"));
  }
  const int size = DataTypeSize(want.dtype());
  const char* w = static_cast<const char*>(want.raw_data());
  const char* g = static_cast<const char*>(got.raw_data());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (std::memcmp(w + i * size, g + i * size, size) != 0) {
      return Differ(absl::StrCat(what, ": element ", Index(want.shape(), i),
                                 " differs: stepflow ", got.SummarizeValue(8),
                                 ", TensorFlow ", want.SummarizeValue(8)));
    }
  }
  return absl::OkStatus();
}

absl::Status CompareOutcomes(const CaseOutcome& tensorflow,
                             const CaseOutcome& stepflow, const GraphDef& graph,
                             const std::vector<std::string>& fetches) {
  const size_t common =
      std::min(tensorflow.steps.size(), stepflow.steps.size());
  for (size_t step = 0; step < common; ++step) {
    const auto& want = tensorflow.steps[step];
    const auto& got = stepflow.steps[step];
    if (want.size() != got.size()) {
      return Differ(absl::StrCat("step ", step, ": stepflow fetched ",
                                 got.size(), " values, TensorFlow ",
                                 want.size()));
    }
    for (size_t i = 0; i < want.size(); ++i) {
      absl::Status s = CompareTensors(
          want[i], got[i], graph,
          absl::StrCat("step ", step, " fetch '",
                       i < fetches.size() ? fetches[i] : "?", "'"));
      if (!s.ok()) return s;
    }
  }
  if (tensorflow.status.code() != stepflow.status.code()) {
    return Differ(absl::StrCat(
        "status: stepflow ",
        stepflow.status.ok() ? "OK"
                             : absl::StrCat(stepflow.status.ToString(), " (",
                                            stepflow.phase, ")"),
        "; TensorFlow ",
        tensorflow.status.ok() ? "OK"
                               : absl::StrCat(tensorflow.status.ToString(),
                                              " (", tensorflow.phase, ")")));
  }
  if (tensorflow.steps.size() != stepflow.steps.size()) {
    return Differ(absl::StrCat("stepflow completed ", stepflow.steps.size(),
                               " steps, TensorFlow ", tensorflow.steps.size()));
  }
  return absl::OkStatus();
}

}  // namespace oracle
}  // namespace stepflow
