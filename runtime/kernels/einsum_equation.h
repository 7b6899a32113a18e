// Einsum equations: parsing "ab,bc->ac" and resolving its labels against
// the input shapes into the plan the Einsum kernel executes.
//
// An equation names each input's dimensions with labels (any character but
// '.', ',' and the arrow; letters in practice, but a space is a label too,
// as in TensorFlow) and at most one ellipsis "..." per operand, which stands
// for the dimensions not named (broadcast against each other like NumPy,
// aligned from the right). The output after "->" lists the labels to keep;
// every other label is summed over. A label repeated within one input takes
// that input's diagonal; one repeated in the output makes a diagonal tensor
// (zero off the diagonal). One or two inputs. An output without an ellipsis
// where the inputs have ellipsis dimensions is an error.
//
// Errors (InvalidArgument, message only; the kernel names the node): a
// malformed equation (no single '->', a '.' outside "...", more than one
// ellipsis per operand, output labels no input has, a count of input subscripts
// other than the number of inputs, more than two inputs), ranks that do not
// match the subscripts, a label with two different dimensions, and ellipsis
// dimensions that do not broadcast. Thread-safety: plain values.
#ifndef STEPFLOW_RUNTIME_KERNELS_EINSUM_EQUATION_H_
#define STEPFLOW_RUNTIME_KERNELS_EINSUM_EQUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

// A parsed equation. Labels are the characters' codes (0..255); kEllipsis
// marks "...".
struct EinsumEquation {
  static constexpr int kEllipsis = -1;
  static constexpr int kNamedLabels = 256;
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
};

absl::Status ParseEinsumEquation(const std::string& equation,
                                 EinsumEquation* out);

// A label resolved against the input shapes. Ellipsis dimensions become
// labels of their own (kNamedLabels + position among the broadcast
// dimensions).
struct EinsumLabel {
  int64_t dim = 1;                    // Size in the output / after broadcast.
  std::vector<int64_t> input_dim;     // Per input: its size there, or -1.
  std::vector<int64_t> input_stride;  // Per input: element stride (summed
                                      // over repeats: the diagonal).
  bool in_output = false;
};

struct EinsumPlan {
  std::vector<EinsumLabel> labels;  // Indexed by label id; unused have
                                    // input_dim all -1 and !in_output.
  std::vector<int> output;          // Output label ids in output order.
  std::vector<int> unique_output;   // The same without repeats.
  TensorShape output_shape;
};

// Resolves `eq` against `shapes` (one per input).
absl::Status ResolveEinsum(const EinsumEquation& eq,
                           const std::vector<TensorShape>& shapes,
                           EinsumPlan* plan);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_EINSUM_EQUATION_H_
