// Scope: where the C++ client adds nodes and what it adds them with — a
// name prefix, a device, control dependencies and colocation — in the
// style of TensorFlow's C++ `Scope` and Python's name/device scopes.
//
//   Scope root = Scope::NewRootScope();            // a new graph
//   Scope layer = root.NewSubScope("layer1");      // names "layer1/..."
//   Scope on1 = layer.WithDevice("/device:CPU:1");
//   auto w = ops::Variable(on1.WithOpName("w"), {2, 2}, DT_FLOAT);
//   auto train = ops::NoOp(root.WithControlDependencies({step1, step2}));
//
// Scopes are values: the With*/NewSubScope methods return a new Scope and
// leave the receiver unchanged. Every scope derived from one root shares
// that root's status: the first error (an unknown op, a type mismatch, an
// invalid input) is kept, later ops are not added, and status() reports
// it — so graph-building code can check once at the end.
//
// Thread-safety: a Scope may be used from several threads (the graph and
// the shared status are internally synchronised).
#ifndef STEPFLOW_RUNTIME_CLIENT_SCOPE_H_
#define STEPFLOW_RUNTIME_CLIENT_SCOPE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/attr_value.pb.h"
#include "runtime/client/graph.h"

namespace stepflow {
namespace client {

// An attribute for Scope::AddOp.
using Attr = std::pair<std::string, AttrValue>;

class Scope {
 public:
  // A root scope over a new graph.
  static Scope NewRootScope();
  // A root scope over the calling thread's default graph.
  static Scope DefaultScope();
  // A root scope over `graph` (sharing it).
  explicit Scope(Graph graph);

  // Names of ops built in the result are prefixed by "<prefix>/<name>/".
  // The sub-scope name is made unique within its parent ("layer",
  // "layer_1", ...).
  Scope NewSubScope(absl::string_view name) const;
  // The next op gets exactly this name (under the prefix), uniquified if
  // taken.
  Scope WithOpName(absl::string_view name) const;
  // Ops get this device request (placer syntax, e.g. "/device:CPU:1").
  Scope WithDevice(absl::string_view device) const;
  // Ops get control inputs on `ops` (added to the current ones).
  Scope WithControlDependencies(const std::vector<Operation>& ops) const;
  // Ops are colocated with `op` (TensorFlow's "_class" = "loc:@<name>").
  Scope ColocateWith(const Operation& op) const;

  const Graph& graph() const { return graph_; }
  // The first error of any scope derived from the same root.
  absl::Status status() const;
  bool ok() const { return status().ok(); }
  // Records `s` if it is the first error.
  void UpdateStatus(const absl::Status& s) const;

  // Adds a node of `op_type` with `inputs` (data inputs in order, each an
  // output of this scope's graph) and `attrs`. Type attrs the op's inputs
  // determine ("T" of Add, "dtype"/"T" of refs...) are inferred from the
  // inputs when not given. On error (also when the scope already failed)
  // returns an invalid Operation and records the error.
  Operation AddOp(absl::string_view op_type, const std::vector<Output>& inputs,
                  std::vector<Attr> attrs) const;

 private:
  struct SharedStatus;
  Scope(Graph graph, std::shared_ptr<SharedStatus> status)
      : graph_(std::move(graph)), status_(std::move(status)) {}
  std::string NodeName(absl::string_view op_type) const;

  Graph graph_;
  std::shared_ptr<SharedStatus> status_;
  std::string prefix_;   // "" or "a/b/".
  std::string op_name_;  // Set by WithOpName.
  std::string device_;
  std::vector<std::string> control_deps_;
  std::string colocate_with_;  // Node name.
};

// AttrValue helpers for Scope::AddOp.
AttrValue AttrType(DataType t);
AttrValue AttrInt(int64_t v);
AttrValue AttrFloat(float v);
AttrValue AttrBool(bool v);
AttrValue AttrString(const std::string& v);
AttrValue AttrShape(const std::vector<int64_t>& dims);
AttrValue AttrTensor(const Tensor& t);

}  // namespace client
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_CLIENT_SCOPE_H_
