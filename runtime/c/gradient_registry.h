// The symbolic gradient registry of TF_AddGradients: for each op type, a
// function that adds the operations computing the gradients of an
// operation's inputs from the gradients of its outputs.
//
// A gradient function gets the operation and one gradient per output (a
// tensor of the output's shape: ones or zeros where nothing flowed back)
// and fills one entry per data input, NoGradient() (gradient_builder.h) for
// inputs that have none (integer shapes, indices, conditions). Ops whose
// outputs do not depend differentiably on their inputs (shapes, comparisons,
// integer ops) are registered with no function: every input gets
// NoGradient. Ops missing from the registry are NotFound, with TensorFlow's
// message ("No gradient defined for op: <type>. ...").
//
// Registration happens at static initialisation (GRADIENT_REGISTRATION
// below); lookups afterwards are read-only and thread-safe.
#ifndef STEPFLOW_RUNTIME_C_GRADIENT_REGISTRY_H_
#define STEPFLOW_RUNTIME_C_GRADIENT_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/c/c_api.h"
#include "runtime/c/gradient_builder.h"

namespace stepflow {
namespace c_api {

using GradFn = void (*)(GradBuilder& b, TF_Operation* op,
                        const std::vector<TF_Output>& dy,
                        std::vector<TF_Output>* dx);

// Registers `fn` (null: no gradient) for `op_type`; returns true so it can
// initialise a static.
bool RegisterGradient(const char* op_type, GradFn fn);

// The function for `op_type` in *fn (null for a registered op without
// gradients); NotFound if the op has no registration.
absl::Status LookupGradient(const std::string& op_type, GradFn* fn);

}  // namespace c_api
}  // namespace stepflow

#define SF_GRADIENT_CONCAT_INNER(a, b) a##b
#define SF_GRADIENT_CONCAT(a, b) SF_GRADIENT_CONCAT_INNER(a, b)
// REGISTER_GRADIENT("Op", Fn) / REGISTER_NO_GRADIENT("Op") at file scope.
#define REGISTER_GRADIENT(op_type, fn)                                      \
  static const bool SF_GRADIENT_CONCAT(sf_gradient_registered_, __LINE__) = \
      ::stepflow::c_api::RegisterGradient(op_type, fn)
#define REGISTER_NO_GRADIENT(op_type) REGISTER_GRADIENT(op_type, nullptr)

#endif  // STEPFLOW_RUNTIME_C_GRADIENT_REGISTRY_H_
