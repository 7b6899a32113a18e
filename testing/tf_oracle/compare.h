// Compares stepflow's outcome of an oracle case with TensorFlow's.
//
// They match when both failed with the same error code (messages are not
// compared; stepflow's name the node, TensorFlow's word them its own way),
// or both completed every step with equal dtypes, shapes and values within
// the tolerance of tolerance.h. An error after some steps must come at the
// same step, the steps before it matching. Only the code of a failure is
// compared, not the phase: stepflow may refuse a graph at import that
// TensorFlow refuses at its first run (or the reverse) with the same code.
//
// Thread-safety: pure function.
#ifndef STEPFLOW_TESTING_TF_ORACLE_COMPARE_H_
#define STEPFLOW_TESTING_TF_ORACLE_COMPARE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow {
namespace oracle {

// OK on a match; otherwise FailedPrecondition describing the first
// difference (step, fetch, element, both values, the tolerance used).
// `graph` selects the tolerance (tolerance.h); `fetches` names the values.
absl::Status CompareOutcomes(const CaseOutcome& tensorflow,
                             const CaseOutcome& stepflow, const GraphDef& graph,
                             const std::vector<std::string>& fetches);

// The first difference between two tensors under `graph`'s tolerance, or
// OK. `what` prefixes the message.
absl::Status CompareTensors(const Tensor& want, const Tensor& got,
                            const GraphDef& graph, const std::string& what);

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_COMPARE_H_
