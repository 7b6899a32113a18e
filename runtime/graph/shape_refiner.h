// ShapeRefiner: runs each op's shape function over a graph's nodes and
// keeps the inferred output shapes (TensorFlow's ShapeRefiner).
//
// Nodes are added after their inputs. An input whose producer has not been
// added reads as an unknown shape: that is how a while loop's back edge
// (NextIteration -> Merge) is broken, so a loop's Merge gets the shapes its
// inputs agree on and unknown elsewhere, as in TensorFlow. Ops registered
// without a shape function give outputs of unknown shape. A shape function
// that asks for an input's value gets it when the input is constant (a
// Const, or a small int computation over constants and known shapes, see
// constant_evaluator.h) and null otherwise.
//
// Errors: AddNode returns the shape function's error (InvalidArgument) with
// the node and its input shapes attached in TensorFlow's form:
//   Dimensions must be equal, but are 2 and 3 for '{{node add}} =
//   Add[T=DT_FLOAT](a, b)' with input shapes: [2], [3].
// The node then stays out of the refiner.
//
// Ownership: borrows the nodes (which must outlive their records: call
// RemoveNode before removing one from its graph) and the op registry.
// Thread-compatible.
#ifndef STEPFLOW_RUNTIME_GRAPH_SHAPE_REFINER_H_
#define STEPFLOW_RUNTIME_GRAPH_SHAPE_REFINER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "proto/function.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/shape_inference.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"

namespace stepflow {

class ShapeRefiner {
 public:
  explicit ShapeRefiner(const OpRegistry* ops = OpRegistry::Global());
  ~ShapeRefiner();
  ShapeRefiner(const ShapeRefiner&) = delete;
  ShapeRefiner& operator=(const ShapeRefiner&) = delete;

  // Runs `node`'s shape function on its inputs' shapes and records its
  // outputs. Adding a node twice is a no-op.
  absl::Status AddNode(const Node* node);
  // Adds `nodes` in topological order (data and control edges among them,
  // ignoring NextIteration -> Merge back edges); stops at the first error.
  absl::Status AddNodes(absl::Span<Node* const> nodes);
  // Adds every op node of `graph` the refiner does not have yet.
  absl::Status AddMissingNodes(const Graph& graph);
  // Forgets `node` (before it is removed from its graph).
  void RemoveNode(const Node* node);
  bool HasNode(const Node* node) const;
  // How many nodes the refiner holds.
  int num_nodes() const { return num_nodes_; }

  // Output `index` of an added node; unset if the node was not added.
  shape_inference::ShapeHandle OutputShape(const Node* node, int index) const;
  // The same as a proto (unknown rank when not added).
  void OutputShapeProto(const Node* node, int index,
                        TensorShapeProto* proto) const;
  // What output `index`'s resource handle refers to, or null.
  const std::vector<shape_inference::ShapeAndType>* OutputHandleShapes(
      const Node* node, int index) const;
  // Replaces it (TensorFlow's set_output_handle_shapes_and_types; empty
  // clears it); nodes added afterwards read the new value through their
  // inputs. FailedPrecondition when the node was not added, OutOfRange for
  // an index beyond its outputs. Shapes must come from manager().
  absl::Status SetOutputHandleShapes(
      const Node* node, int index,
      std::vector<shape_inference::ShapeAndType> handle);

  // When set, AddNode refuses an op registered without a shape function
  // (InvalidArgument), as TensorFlow's refiner does when told to require
  // them; by default such ops give unknown shapes.
  void set_require_shape_fns(bool require) { require_shape_fns_ = require; }

  // When set, AddNode merges a node's "_output_shapes" attr (the shapes a
  // GraphDef's writer recorded) into its inferred outputs, as TensorFlow's
  // ImportGraphDef does: InvalidArgument ("Node 'y' has an _output_shapes
  // attribute inconsistent with the GraphDef for output #0: ...") when they
  // disagree or the attr lists fewer shapes than the node has outputs.
  void set_merge_output_shapes_attr(bool merge) {
    merge_output_shapes_attr_ = merge;
  }

  // A call of a library function, as the refiner sees it: what runs, and
  // its inputs' shapes (unknown rank where unknown) and, per input, what a
  // resource handle refers to (its first entry; dtype DT_INVALID if none).
  struct FunctionCall {
    const FunctionDefLibrary* library = nullptr;
    std::string function;
    const google::protobuf::Map<std::string, AttrValue>* attrs = nullptr;
    std::vector<TensorShapeProto> input_shapes;
    std::vector<std::pair<TensorShapeProto, DataType>> input_handles;
  };
  // Infers a call's output shapes through the function's body, as
  // TensorFlow's refiner does (runtime/function/function_shape_inference.h
  // provides one; the refiner cannot depend on the function library).
  using FunctionCallShapeFn = std::function<absl::Status(
      const FunctionCall& call, std::vector<TensorShapeProto>* outputs)>;
  // With a library and `fn` set, a call node (PartitionedCall and
  // StatefulPartitionedCall by their "f", or a node whose op names a
  // function of `library`) gets the outputs `fn` infers, merged into its
  // own shape function's; a failing `fn` leaves those. Unset (null) by
  // default. `library` is borrowed until reset.
  void set_function_library(const FunctionDefLibrary* library,
                            FunctionCallShapeFn fn) {
    function_library_ = library;
    function_call_shape_fn_ = std::move(fn);
  }

  // Merges `shape` into output `index` of an added node (TensorFlow's
  // SetShape); Merge's InvalidArgument when they are incompatible
  // ("Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes
  // are [2] and [3]."), FailedPrecondition when the node was not added.
  absl::Status SetShape(const Node* node, int index,
                        shape_inference::ShapeHandle shape);
  // Builds shapes owned by this refiner (for SetShape).
  shape_inference::ShapeManager* manager() { return &manager_; }
  absl::Status MakeShapeFromProto(const TensorShapeProto& proto,
                                  shape_inference::ShapeHandle* out);
  std::string DebugString(shape_inference::ShapeHandle s) const;

 private:
  class NodeConstants;
  friend class NodeConstants;

  struct NodeRecord {
    const Node* node = nullptr;
    absl::InlinedVector<shape_inference::ShapeHandle, 1> outputs;
    // Set only for nodes whose outputs carry resource handle data.
    std::unique_ptr<std::vector<std::vector<shape_inference::ShapeAndType>>>
        handle_data;
  };

  const NodeRecord* Record(const Node* node) const;
  const ShapeInferenceFn* ShapeFnFor(const Node* node);
  // Merges `node`'s "_output_shapes" into its recorded outputs.
  absl::Status MergeOutputShapesAttr(const Node* node);
  // Refines `c`'s outputs through the called function's body when `node`
  // is a function call and a library is set.
  void InferCallThroughBody(const Node* node,
                            shape_inference::InferenceContext* c);

  // The value of output `index` of `node` when it is a constant the
  // evaluator can compute (cached); null otherwise.
  const Tensor* EvaluateConstant(const Node* node, int index, int depth);
  // The value of data input `input` of `node`, or null.
  const Tensor* EvaluateConstantInput(const Node* node, int input, int depth);
  // Input `input` of `node`, an int vector, read as a partial shape
  // (TensorFlow's ConstantPartialShape); unset when unknown.
  absl::Status ConstantPartialShape(shape_inference::InferenceContext* target,
                                    const Node* node, int input, int depth,
                                    shape_inference::ShapeHandle* result);
  absl::Status PartialStridedSliceShape(
      shape_inference::InferenceContext* target, const Node* slice, int depth,
      shape_inference::ShapeHandle* result);
  // The scalar int value of input `input` of `node`.
  bool ConstantIntScalar(const Node* node, int input, int depth,
                         int64_t* value);

  const OpRegistry* const ops_;
  shape_inference::ShapeManager manager_;
  std::vector<NodeRecord> records_;  // By node id.
  int num_nodes_ = 0;
  bool require_shape_fns_ = false;
  bool merge_output_shapes_attr_ = false;
  const FunctionDefLibrary* function_library_ = nullptr;
  FunctionCallShapeFn function_call_shape_fn_;
  absl::flat_hash_map<const OpDef*, const ShapeInferenceFn*> shape_fns_;
  // Evaluated constants by (node id, output); nullopt: not constant. Node
  // based: contexts hold pointers to the values.
  absl::node_hash_map<std::pair<int, int>, std::optional<Tensor>> constants_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_SHAPE_REFINER_H_
