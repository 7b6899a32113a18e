// The training data every test of TensorFlow's linear_regression_train.pb
// feeds: 100 points x in [0, 1) from a fixed pseudo-random sequence (the
// same in every process and every seed) and y = 0.1 x + 0.3, as feeds for
// the graph's placeholders "x" and "y". Test-only.
#ifndef STEPFLOW_TESTING_LINEAR_REGRESSION_DATA_H_
#define STEPFLOW_TESTING_LINEAR_REGRESSION_DATA_H_

#include <string>
#include <utility>
#include <vector>

#include "runtime/framework/tensor.h"

namespace stepflow::graph_testing {

std::vector<std::pair<std::string, Tensor>> LinearRegressionFeeds();

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_LINEAR_REGRESSION_DATA_H_
