// GraphDef -> Graph import with full validation (TensorFlow's
// ConvertGraphDefToGraph / the import half of Session::Extend).
//
// Validation, all InvalidArgument unless noted, every message naming the
// offending node ("{{node <name>}}") and, where relevant, the op or input:
//   - versions (CheckGraphDefVersions); importing into a graph that already
//     has op nodes with a different producer version;
//   - node names ([A-Za-z0-9.][A-Za-z0-9_./-]*; a leading '_' is accepted
//     only with allow_internal_ops), duplicate names within the GraphDef or
//     with nodes already in the graph;
//   - ops: unknown ops are NotFound, one error naming every unregistered op
//     type with the first node that uses it and how many do ("Op types not
//     registered in this binary: 'Conv2D' (used by {{node conv1/Conv2D}} and
//     2 more nodes), 'MaxPool' (used by {{node pool}})"); a node calling a
//     function (its op names a function of the library, or an unregistered
//     op such as StatefulPartitionedCall/StatelessIf has function-valued
//     attrs) is Unimplemented naming node and function: the constructor
//     does not run functions (sessions lower calls first, see
//     runtime/function/lower_functional_ops.h); internal ops (op names
//     starting with '_', e.g. _Send/_Recv/_Arg/_Retval) need
//     allow_internal_ops; attrs must validate against the OpDef (missing
//     attrs with defaults are filled when add_default_attributes);
//   - inputs: empty or malformed ("^x:1"), control inputs before data inputs,
//     unknown input node, output index beyond the producer's outputs, wrong
//     number of data inputs for the op, incompatible dtype (a ref output may
//     feed a non-ref input of its base type; a non-ref output cannot feed a
//     ref input);
//   - cycles, except those closing through a NextIteration -> Merge edge;
//   - with validate_colocation_constraints, a `_class` entry "loc:@x" where
//     x is not a node of the GraphDef;
//   - with infer_shapes, shapes: every op's shape function runs over the
//     graph (ShapeRefiner) and a node whose inputs' shapes are inconsistent
//     fails the import with the shape function's error, the node and its
//     input shapes attached ("Dimensions must be equal, but are 2 and 3 for
//     '{{node add}} = Add[T=DT_FLOAT](a, b)' with input shapes: [2], [3].").
// Inputs may name nodes appearing later in the GraphDef. Nodes are added in
// GraphDef order (so ids follow it). SOURCE/SINK are not visible by name.
//
// Atomicity: on any error the graph is left unchanged.
// Thread-compatible: needs exclusive access to the graph.
#ifndef STEPFLOW_RUNTIME_GRAPH_GRAPH_CONSTRUCTOR_H_
#define STEPFLOW_RUNTIME_GRAPH_GRAPH_CONSTRUCTOR_H_

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/shape_refiner.h"

namespace stepflow {

struct GraphConstructorOptions {
  // Accept internal ops (_Send, _Recv, _Arg, _Retval, ...) and node names
  // starting with '_' (as the runtime itself produces in partition graphs).
  bool allow_internal_ops = false;
  // Fill attrs the OpDef gives defaults for and the NodeDef lacks.
  bool add_default_attributes = true;
  // Set each node's assigned device from NodeDef.device (for graphs that
  // are already placed, e.g. partitions registered with a worker).
  bool expect_device_spec = false;
  // Check that every "loc:@x" colocation entry names a node of the GraphDef
  // (TensorFlow's ImportGraphDef does; its ConvertGraphDefToGraph and the
  // sessions do not, and the placer treats an absent x as a group name).
  bool validate_colocation_constraints = false;
  // Run shape inference over the imported nodes and refuse inconsistent
  // shapes, as TensorFlow's importer does. Off only for graphs the runtime
  // derived from an already checked one (partitions).
  bool infer_shapes = true;
  // With infer_shapes: merge each node's "_output_shapes" attr into its
  // inferred shapes (ShapeRefiner::set_merge_output_shapes_attr), as
  // TensorFlow's ImportGraphDef does (its sessions do not).
  bool merge_output_shapes_attr = false;
  // Accept nodes that call a library function by name (their OpDef is the
  // function's signature, function_call_op.h), as TensorFlow's graphs do;
  // off, such a node is Unimplemented (sessions rewrite calls before they
  // import a graph, and the executor has no kernel for them).
  bool allow_function_calls = false;
};

// Imports `gdef` into `g`, which must have no op nodes (InvalidArgument
// otherwise). The graph takes the GraphDef's versions and library.
absl::Status ConvertGraphDefToGraph(const GraphConstructorOptions& opts,
                                    const GraphDef& gdef, Graph* g);

// As above, but consumes `gdef`: its NodeDefs move into the graph instead of
// being copied, so a large graph's NodeDefs are never held twice. `gdef` is
// left empty whatever the outcome.
absl::Status ConvertGraphDefToGraph(const GraphConstructorOptions& opts,
                                    GraphDef&& gdef, Graph* g);

// Imports `gdef` into `g`, which may already hold nodes: new nodes may take
// inputs from existing ones; re-using an existing name is InvalidArgument.
// If `g` has no op nodes it takes the GraphDef's versions; otherwise the
// producer versions must match. Library functions are merged by name
// (a different definition under an existing name is InvalidArgument).
//
// With `refiner` (borrowed, for `g`), the imported nodes' shapes are
// inferred there and stay available (with any of `g`'s nodes it lacked);
// without it a temporary refiner checks the whole graph. A failed import
// leaves the refiner without the new nodes.
absl::Status ImportGraphDef(const GraphConstructorOptions& opts,
                            const GraphDef& gdef, Graph* g,
                            ShapeRefiner* refiner = nullptr);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_GRAPH_CONSTRUCTOR_H_
