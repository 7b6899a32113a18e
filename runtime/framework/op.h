// Op registration: OpDefBuilder (TensorFlow's spec syntax) and OpRegistry.
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {half, bfloat16, float, double, int32, int64}");
//
// Input/Output specs: "<name>: <type>" where <type> is a concrete type
// ("float"), a type attr ("T"), "N * T" (a list of N tensors of type T, with
// N an int attr), a type-list attr ("Tlist"), or "Ref(<type>)".
// Attr specs: "<name>: <attr type>[ = <default>]" where <attr type> is
// string, int, float, bool, type, shape, tensor, func, list(<one of those>),
// a type set "{float, int32}" (type attr restricted to those), or the named
// sets numbertype, realnumbertype, quantizedtype(empty here). "int >= 2"
// sets a minimum. Defaults: 0, -1.5, true, 'SAME', float, [1, 2], [],
// and for shapes: {unknown_rank: true} or [2, 3] or [-1].
//
// Thread-safety: the registry is filled during static initialisation and
// read-only afterwards; lookups are thread-safe.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_OP_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_OP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "proto/op_def.pb.h"

namespace stepflow {

namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

// An op's shape function (TensorFlow's SetShapeFn): reads the context's
// input shapes (and, when constant, input tensors) and attrs, sets every
// output's shape; an error means the node's inputs are inconsistent. Ops
// registered without one give outputs of unknown shape.
using ShapeInferenceFn =
    std::function<absl::Status(shape_inference::InferenceContext* c)>;

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& Doc(std::string summary);
  // The op's shape function (see ShapeInferenceFn).
  OpDefBuilder& SetShapeFn(ShapeInferenceFn fn);
  const ShapeInferenceFn& shape_fn() const { return shape_fn_; }

  // InvalidArgument naming the op and the bad spec if any spec fails to
  // parse or refers to an undeclared attr.
  absl::Status Finalize(OpDef* op_def) const;

 private:
  OpDef op_def_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  std::vector<std::string> errors_;
  ShapeInferenceFn shape_fn_;
};

class OpRegistry {
 public:
  // The process-wide registry REGISTER_OP fills.
  static OpRegistry* Global();

  OpRegistry() = default;

  // AlreadyExists if an op of that name is registered. `shape_fn` may be
  // empty (outputs of unknown shape).
  absl::Status Register(const OpDef& op_def, ShapeInferenceFn shape_fn = {});

  // NotFound: "Op type not registered '<name>'" (with a hint when a
  // similarly named op exists).
  absl::Status LookUp(absl::string_view op_type, const OpDef** op_def) const;
  const OpDef* LookUpOrNull(absl::string_view op_type) const;
  // The shape function registered with `op_type`; null when the op is not
  // registered or has none. The pointer stays valid forever.
  const ShapeInferenceFn* LookUpShapeFn(absl::string_view op_type) const;
  // A registered op whose name is close to `op_type` (same letters in
  // another case, or within two edits), the first in sorted order; empty
  // when there is none. LookUp's "did you mean" hint.
  std::string SimilarOpName(absl::string_view op_type) const;

  // Sorted op names.
  std::vector<std::string> ListOps() const;

 private:
  mutable absl::Mutex mu_;
  // TensorFlow's OpRegistrationData: the OpDef and its shape function.
  struct Registration {
    OpDef op_def;
    ShapeInferenceFn shape_fn;
  };
  // Values are heap-allocated so pointers into them stay valid forever.
  std::map<std::string, std::unique_ptr<Registration>, std::less<>> ops_
      ABSL_GUARDED_BY(mu_);
};

namespace register_op {
// Finalizes and registers the builder's op in OpRegistry::Global(); a bad
// spec or duplicate name is a programming error and aborts at start-up.
struct OpDefBuilderReceiver {
  OpDefBuilderReceiver(const OpDefBuilder& builder);  // NOLINT
};
}  // namespace register_op

#define REGISTER_OP(name) REGISTER_OP_UNIQ_HELPER(__COUNTER__, name)
#define REGISTER_OP_UNIQ_HELPER(ctr, name) REGISTER_OP_UNIQ(ctr, name)
#define REGISTER_OP_UNIQ(ctr, name)                                     \
  static ::stepflow::register_op::OpDefBuilderReceiver register_op##ctr \
      __attribute__((unused)) = ::stepflow::OpDefBuilder(name)

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_OP_H_
