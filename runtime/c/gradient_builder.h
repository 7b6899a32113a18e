// GradBuilder: adds the operations of symbolic gradients to a TF_Graph
// through the C API, under one name scope ("gradients/<op>_grad/<Type>").
//
// Every helper returns the new operation's output; after the first failure
// the builder records the error, returns {nullptr, 0} and adds nothing
// more, so a gradient function may chain helpers and check status() once.
// Not thread-safe; the graph's own lock is taken by each C API call (the
// caller must not hold it).
#ifndef STEPFLOW_RUNTIME_C_GRADIENT_BUILDER_H_
#define STEPFLOW_RUNTIME_C_GRADIENT_BUILDER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/c/c_api.h"

namespace stepflow {
namespace c_api {

// Tensors as gradient functions see them.
using Outputs = std::vector<TF_Output>;
// The tensor feeding data input `i` of `op`.
inline TF_Output OpInput(TF_Operation* op, int i) {
  return TF_OperationInput(TF_Input{op, i});
}
// Output `i` of `op`.
inline TF_Output OpOutput(TF_Operation* op, int i) { return TF_Output{op, i}; }

// "No gradient" for an input: TF_Output{nullptr, -1}.
inline TF_Output NoGradient() { return TF_Output{nullptr, -1}; }
inline bool IsNoGradient(const TF_Output& o) { return o.oper == nullptr; }

class GradBuilder {
 public:
  // Attr setter for a new operation's description.
  using Attrs = std::function<void(TF_OperationDescription*)>;

  // Operations go to `graph` (borrowed) under `scope` (a free name).
  GradBuilder(TF_Graph* graph, std::string scope);

  // Operations of one op's gradient are named "<scope>/<op>_grad/...".
  void set_op_scope(const std::string& op_name);

  const absl::Status& status() const { return status_; }
  void Fail(absl::Status s);

  // A new operation: each entry of `inputs` is one input argument, a
  // single tensor or (several) the tensors of a list argument.
  TF_Operation* AddOp(const std::string& type,
                      const std::vector<std::vector<TF_Output>>& inputs,
                      const Attrs& attrs = nullptr);
  // Output 0 of a new operation with single-tensor inputs.
  TF_Output Op(const std::string& type, const std::vector<TF_Output>& inputs,
               const Attrs& attrs = nullptr);

  // Constants.
  TF_Output ConstInt32(const std::vector<int32_t>& values, bool scalar);
  // Scalar `value` of `dtype` (a float constant cast to dtype).
  TF_Output ScalarLike(float value, TF_DataType dtype);

  // Common operations (attrs inferred by the C API from the inputs).
  TF_Output Shape(TF_Output x) { return Op("Shape", {x}); }
  TF_Output ZerosLike(TF_Output x) { return Op("ZerosLike", {x}); }
  TF_Output OnesLike(TF_Output x) { return Op("OnesLike", {x}); }
  TF_Output Neg(TF_Output x) { return Op("Neg", {x}); }
  TF_Output Add(TF_Output x, TF_Output y) { return Op("AddV2", {x, y}); }
  TF_Output Sub(TF_Output x, TF_Output y) { return Op("Sub", {x, y}); }
  TF_Output Mul(TF_Output x, TF_Output y) { return Op("Mul", {x, y}); }
  TF_Output Div(TF_Output x, TF_Output y) { return Op("RealDiv", {x, y}); }
  TF_Output Reshape(TF_Output x, TF_Output shape) {
    return Op("Reshape", {x, shape});
  }
  TF_Output Cast(TF_Output x, TF_DataType to);
  TF_Output Sum(TF_Output x, TF_Output axes, bool keep_dims);
  // The gradients dx, dy (either may be null: not wanted) of a
  // broadcasting binary op's inputs x and y, from gx and gy of the
  // broadcast shape: each summed over the dimensions its input was
  // broadcast along and reshaped to that input's shape.
  void ReduceBroadcast(TF_Output x, TF_Output y, TF_Output gx, TF_Output gy,
                       TF_Output* dx, TF_Output* dy);
  // `input_shape` with the dimensions in `axes` (negative ones count from
  // the end) set to 1: the shape a reduction with keep_dims gives. int32.
  TF_Output ReducedShape(TF_Output input_shape, TF_Output axes);
  // Adds `grads` (one tensor: itself; several: AddN).
  TF_Output AddN(const std::vector<TF_Output>& grads);

  // The dtype of tensor `x`.
  static TF_DataType Type(TF_Output x) { return TF_OperationOutputType(x); }

 private:
  std::string NewName(const std::string& type);

  TF_Graph* graph_;
  std::string scope_;
  std::string op_scope_;
  absl::Status status_;
};

// Attr helpers for gradient functions.
// Copies attr `name` of `from` onto `to`; no-op if `from` lacks it.
void CopyAttr(TF_Operation* from, const char* name,
              TF_OperationDescription* to);
bool BoolAttr(TF_Operation* op, const char* name, bool fallback = false);
TF_DataType TypeAttr(TF_Operation* op, const char* name);

}  // namespace c_api
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_C_GRADIENT_BUILDER_H_
