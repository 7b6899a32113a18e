// InferFunctionCallShapes: the output shapes of one call of a library
// function, found as TensorFlow's shape refiner finds them: the function
// is instantiated for the call's attrs (instantiate.h) and shape inference
// runs over its body, each argument taking the call's input shape (and,
// for a resource, what the caller's handle refers to); the results are
// the shapes of the body's return tensors. Calls inside the body are
// inferred the same way, to FunctionLibrary::kMaxCallDepth levels.
//
// It is the ShapeRefiner::FunctionCallShapeFn the importer hands its
// refiner (graph_constructor.cc), so that an imported call's outputs have
// the shapes TensorFlow's importer gives them.
//
// Errors: the library's (NotFound for an unknown function,
// InvalidArgument for a recursive one), instantiation's, the body's shape
// inference's, and InvalidArgument when the call's inputs do not match
// the function's arguments. Thread-safe (no shared state).
#ifndef STEPFLOW_RUNTIME_FUNCTION_FUNCTION_SHAPE_INFERENCE_H_
#define STEPFLOW_RUNTIME_FUNCTION_FUNCTION_SHAPE_INFERENCE_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/graph/shape_refiner.h"

namespace stepflow {

absl::Status InferFunctionCallShapes(const ShapeRefiner::FunctionCall& call,
                                     std::vector<TensorShapeProto>* outputs);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_FUNCTION_SHAPE_INFERENCE_H_
