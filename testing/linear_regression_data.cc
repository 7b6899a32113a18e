#include "testing/linear_regression_data.h"

#include <cstdint>

namespace stepflow::graph_testing {
namespace {

Tensor FloatVec(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
  return t;
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> LinearRegressionFeeds() {
  std::vector<float> xs, ys;
  uint64_t state = 12345;
  for (int i = 0; i < 100; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    xs.push_back(static_cast<float>(state >> 40) / static_cast<float>(1 << 24));
    ys.push_back(0.1f * xs.back() + 0.3f);
  }
  return {{"x", FloatVec(xs)}, {"y", FloatVec(ys)}};
}

}  // namespace stepflow::graph_testing
