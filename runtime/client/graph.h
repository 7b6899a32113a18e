// The C++ client's graph: an append-only, validated GraphDef under
// construction, shared by the scopes that add to it and the sessions that
// run it (TensorFlow 1.x's tf.Graph, seen from C++).
//
//   client::Graph g;                       // a new, empty graph
//   client::Scope root = client::Scope(g);
//   auto x = client::ops::Const(root, 3.0f);
//   { auto guard = g.AsDefault(); ... }    // Graph::Default() is g here
//
// A Graph is a cheap handle: copies share one graph, which lives as long as
// any handle, Operation or Session refers to it (no dangling graph, no
// explicit delete). Nodes are only ever added — never changed or removed —
// so a session extends itself with exactly the nodes added since its last
// run.
//
// Every node is validated against the op registry when it is added (op
// exists, attrs complete and well-typed, inputs exist with the dtypes the
// op expects); a bad node is rejected with InvalidArgument/NotFound naming
// it and the graph is unchanged.
//
// Default graphs: each thread has a stack of default graphs pushed by
// AsDefault() guards; Default() returns its top, or a process-wide graph
// (created on first use) when the stack is empty.
//
// Thread-safety: all methods are thread-safe; the default-graph stack is
// per thread.
#ifndef STEPFLOW_RUNTIME_CLIENT_GRAPH_H_
#define STEPFLOW_RUNTIME_CLIENT_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"
#include "proto/types.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace client {

class Session;
struct GraphState;

class Graph {
 public:
  Graph();  // A new empty graph.

  // Mutators are const: a Graph is a handle, and adding to the graph it
  // refers to does not change which graph that is.

  // Validates `def` (see above), adds it and returns its output dtypes.
  // AlreadyExists if the name is taken.
  absl::Status AddNode(NodeDef def, std::vector<DataType>* output_types) const;

  // `base` if no node has that name yet, else `base_1`, `base_2`, ...
  // (reserved: two calls never return the same name).
  std::string UniqueName(absl::string_view base) const;

  // Output dtypes of node `name`; NotFound if there is none.
  absl::Status OutputTypes(absl::string_view name,
                           std::vector<DataType>* types) const;

  int num_nodes() const;
  GraphDef ToGraphDef() const;
  // The nodes added at positions [from, num_nodes()) and num_nodes().
  GraphDef NodesSince(int from, int* num_nodes) const;

  bool operator==(const Graph& other) const { return state_ == other.state_; }
  bool operator!=(const Graph& other) const { return state_ != other.state_; }

  // Pushes this graph on the calling thread's default stack until the
  // guard is destroyed.
  class DefaultGuard {
   public:
    explicit DefaultGuard(const Graph& graph);
    ~DefaultGuard();
    DefaultGuard(const DefaultGuard&) = delete;
    DefaultGuard& operator=(const DefaultGuard&) = delete;

   private:
    std::shared_ptr<GraphState> state_;
  };
  DefaultGuard AsDefault() const { return DefaultGuard(*this); }
  static Graph Default();

 private:
  explicit Graph(std::shared_ptr<GraphState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<GraphState> state_;
};

class Output;

// A node of a client graph (a handle; copyable). A default-constructed or
// failed Operation is invalid (valid() false): using it as an input
// records an error in the scope instead of adding a node.
class Operation {
 public:
  Operation() = default;
  Operation(Graph graph, std::string name, std::vector<DataType> output_types)
      : graph_(std::move(graph)),
        name_(std::move(name)),
        output_types_(std::move(output_types)) {}

  bool valid() const { return !name_.empty(); }
  const std::string& name() const { return name_; }
  const Graph& graph() const { return graph_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_.at(i); }
  Output output(int i) const;

  // Runs this node as a target in the calling thread's default session
  // (op.run() in TensorFlow). FailedPrecondition without a default
  // session; InvalidArgument if that session runs a different graph.
  absl::Status Run() const;

 private:
  Graph graph_;
  std::string name_;
  std::vector<DataType> output_types_;
};

// One output of an Operation ("node:index").
class Output {
 public:
  Output() = default;
  Output(Operation op, int index) : op_(std::move(op)), index_(index) {}

  bool valid() const {
    return op_.valid() && index_ >= 0 && index_ < op_.num_outputs();
  }
  const Operation& op() const { return op_; }
  int index() const { return index_; }
  DataType dtype() const {
    return valid() ? op_.output_type(index_) : DT_INVALID;
  }
  // "node:index" (plain "node" for index 0), as NodeDef inputs spell it.
  std::string name() const;

  // Fetches this value from the calling thread's default session
  // (tensor.eval() in TensorFlow); errors as Operation::Run.
  absl::StatusOr<Tensor> Eval() const;

 private:
  Operation op_;
  int index_ = 0;
};

inline Output Operation::output(int i) const { return Output(*this, i); }

}  // namespace client
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_CLIENT_GRAPH_H_
