// Shape functions of the random-number ops (TensorFlow's random_ops,
// stateful_random_ops, stateless_random_ops and stateless_random_ops_v2).
// Each follows ShapeInferenceFn's contract (op.h): the output's shape is
// read from the `shape` input where the op has one; seeds, keys, counters
// and algorithm ids are checked to have TensorFlow's shapes (a V1 seed is
// a 2-vector, a V2 key a 1-vector, an algorithm a scalar); errors are
// InvalidArgument in TensorFlow's words.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_RANDOM_SHAPE_FNS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_RANDOM_SHAPE_FNS_H_

#include "absl/status/status.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace shape_inference {

// [batch_size, num_samples] from logits [batch_size, num_classes].
absl::Status MultinomialShape(InferenceContext* c);
absl::Status StatelessMultinomialShape(InferenceContext* c);
// Parameters of at most rank 1, output from `shape`.
absl::Status ParameterizedTruncatedNormalShape(InferenceContext* c);
// `shape` followed by the parameter's shape (RandomGamma, RandomPoissonV2).
absl::Status RandomWithParamShape(InferenceContext* c);
// RngSkip: a scalar algorithm and delta. RngReadAndSkip: the same, and
// output [3], the generator's counter and key.
absl::Status RngSkipShape(InferenceContext* c);
absl::Status RngReadAndSkipShape(InferenceContext* c);
// Stateful*: a scalar algorithm, output from input 2.
absl::Status StatefulRandomShape(InferenceContext* c);
absl::Status StatefulUniformIntShape(InferenceContext* c);
// Stateless V1 (shape, seed[2], ...): output from input 0.
absl::Status StatelessRandomShape(InferenceContext* c);
absl::Status StatelessRandomUniformIntShape(InferenceContext* c);
absl::Status StatelessParameterizedTruncatedNormalShape(InferenceContext* c);
// Stateless V2 (shape, key[1], counter, alg, ...): output from input 0.
absl::Status StatelessRandomShapeV2(InferenceContext* c);
absl::Status StatelessRandomUniformIntV2Shape(InferenceContext* c);
// key [1], counter [2] (and alg []) from a seed [2].
absl::Status StatelessRandomGetKeyCounterShape(InferenceContext* c);
absl::Status StatelessRandomGetKeyCounterAlgShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_RANDOM_SHAPE_FNS_H_
