// Random graphs for the differential test against TensorFlow: rapidcheck
// generators of whole TensorFlow-1.x programs (a GraphDef, its feeds,
// fetches, init target and step count) that real TensorFlow imports and
// runs unchanged, so that stepflow's values and error codes can be held to
// TensorFlow's on graphs nobody wrote by hand.
//
// A graph draws from: float32, int32 and bool tensors of small shapes
// (scalars, vectors, matrices, empty and broadcastable ones); Placeholders
// (fed) and Consts; unary and binary element-wise math with broadcasting,
// comparisons, logical ops and Select; reductions with constant axes;
// MatMul with transposes; Reshape, Transpose, ExpandDims, ConcatV2, Pack,
// Tile and Cast; TensorFlow-1.x conds (Switch/Merge) and while loops
// (Enter, Merge, Switch, LoopCond, NextIteration, Exit, with loop
// constants), written the way tf.cond and tf.while_loop emit them; and
// ref variables (VariableV2, Assign under an "init" NoOp, AssignAdd whose
// result is read after it through a control edge) run for several steps.
// Operands are usually compatible; sometimes they are not (shapes that do
// not broadcast, axes out of range, integer division by zero), so error
// codes are compared too.
//
// Values: fed floats are multiples of 1/4 in [-3, 3] so that sums and
// products are exact in float32 and only the transcendental ops round.
// Node names are "n<i>" with scopes for the blocks; no device is set.
//
// Everything is deterministic given rapidcheck's seed, and shrinks by
// dropping nodes and simplifying choices. Testonly.
#ifndef STEPFLOW_TESTING_DIFFERENTIAL_GRAPHS_H_
#define STEPFLOW_TESTING_DIFFERENTIAL_GRAPHS_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow::graph_testing {

struct DifferentialGraph {
  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> init_targets;  // {"init"} when there are variables
  int steps = 1;
};
void showValue(const DifferentialGraph& g, std::ostream& os);

struct DifferentialOptions {
  int max_nodes = 24;  // Ops drawn (blocks count as one); scaled by size.
  bool allow_control_flow = true;
  bool allow_variables = true;
};

rc::Gen<DifferentialGraph> GenDifferentialGraph(
    const DifferentialOptions& options = DifferentialOptions());

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_DIFFERENTIAL_GRAPHS_H_
