// Static output shapes: TF_GraphSetTensorShape, TF_GraphGetTensorNumDims,
// TF_GraphGetTensorShape; what resource and variant handles refer to
// (TF_GetHandleShapeAndType / TF_SetHandleShapeAndType, as serialized
// CppShapeInferenceResult.HandleData: NULL for an output without handle
// data, as TensorFlow returns); TF_SetRequireShapeInferenceFns.
//
// Shapes come from the graph's ShapeRefiner (runtime/graph/shape_refiner.h):
// every operation's shape function ran when TF_FinishOperation or an import
// added it; nodes added by other paths (while loops, SavedModels) are
// inferred on the first query. TF_GraphSetTensorShape merges into the
// inferred shape. All under the TF_Graph's lock.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/cpp_shape_inference.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/shape_inference.h"

namespace stepflow {
namespace c_api {
namespace {

using shape_inference::ShapeHandle;

// Checks `out` names an output of an operation of `graph`.
absl::Status CheckOutput(const TF_Graph& graph, TF_Output out)
    ABSL_SHARED_LOCKS_REQUIRED(graph.mu) {
  const Node* node = ToNode(out.oper);
  if (node == nullptr || !InGraph(graph, node)) {
    return absl::InvalidArgumentError(
        "output's operation is NULL or not in this graph");
  }
  if (out.index < 0 || out.index >= node->num_outputs()) {
    return absl::OutOfRangeError(
        absl::StrCat("Node '", node->name(), "' (type: '", node->type_string(),
                     "', num of outputs: ", node->num_outputs(),
                     ") does not have output ", out.index));
  }
  return absl::OkStatus();
}

// The inferred shape of `out` (which CheckOutput accepted).
ShapeHandle KnownShape(TF_Graph& graph, TF_Output out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph.mu) {
  const Node* node = ToNode(out.oper);
  if (!graph.refiner.HasNode(node)) {
    // Best effort: an inconsistent node keeps unknown outputs.
    graph.refiner.AddMissingNodes(graph.graph).IgnoreError();
  }
  return graph.refiner.OutputShape(node, out.index);
}

void ShapeToProto(ShapeHandle shape, TensorShapeProto* proto) {
  using shape_inference::InferenceContext;
  const int rank = InferenceContext::Rank(shape);
  if (rank < 0) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < rank; ++i) {
    proto->add_dim()->set_size(
        InferenceContext::Value(InferenceContext::DimKnownRank(shape, i)));
  }
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output,
                            const int64_t* dims, const int num_dims,
                            TF_Status* status) {
  if (graph == nullptr || num_dims < -1 || (num_dims > 0 && dims == nullptr)) {
    Set(status,
        absl::InvalidArgumentError("TF_GraphSetTensorShape: bad arguments"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  absl::Status s = stepflow::c_api::CheckOutput(*graph, output);
  if (!s.ok() || num_dims == -1) {  // An unknown rank adds nothing.
    Set(status, std::move(s));
    return;
  }
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < -1) {
      Set(status, absl::InvalidArgumentError(absl::StrCat(
                      "invalid dimension ", dims[i], " (only -1 is unknown)")));
      return;
    }
  }
  const stepflow::Node* node = stepflow::c_api::ToNode(output.oper);
  stepflow::c_api::KnownShape(*graph, output);  // Adds the node if missing.
  std::vector<stepflow::shape_inference::DimensionHandle> handle_dims;
  for (int i = 0; i < num_dims; ++i) {
    handle_dims.push_back(graph->refiner.manager()->MakeDim(dims[i]));
  }
  s = graph->refiner.SetShape(
      node, output.index,
      graph->refiner.manager()->MakeShape(std::move(handle_dims)));
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  Set(status, absl::OkStatus());
}

int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output,
                             TF_Status* status) {
  if (graph == nullptr) {
    Set(status, absl::InvalidArgumentError("graph is NULL"));
    return -1;
  }
  absl::MutexLock l(&graph->mu);
  absl::Status s = stepflow::c_api::CheckOutput(*graph, output);
  if (!s.ok()) {
    Set(status, std::move(s));
    return -1;
  }
  Set(status, absl::OkStatus());
  return stepflow::shape_inference::InferenceContext::Rank(
      stepflow::c_api::KnownShape(*graph, output));
}

void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output, int64_t* dims,
                            int num_dims, TF_Status* status) {
  if (graph == nullptr || (num_dims > 0 && dims == nullptr)) {
    Set(status,
        absl::InvalidArgumentError("TF_GraphGetTensorShape: bad arguments"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  absl::Status s = stepflow::c_api::CheckOutput(*graph, output);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  using stepflow::shape_inference::InferenceContext;
  const auto shape = stepflow::c_api::KnownShape(*graph, output);
  const int rank = InferenceContext::Rank(shape);
  if (rank < 0) {
    // Unknown rank: nothing to fill, as TensorFlow does.
    Set(status, absl::OkStatus());
    return;
  }
  if (num_dims != rank) {
    Set(status,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected rank is ", rank, " but actual rank is ", num_dims)));
    return;
  }
  for (int i = 0; i < num_dims; ++i) {
    dims[i] = InferenceContext::Value(InferenceContext::DimKnownRank(shape, i));
  }
  Set(status, absl::OkStatus());
}

TF_Buffer* TF_GetHandleShapeAndType(TF_Graph* graph, TF_Output output) {
  if (graph == nullptr) return nullptr;
  absl::MutexLock l(&graph->mu);
  if (!stepflow::c_api::CheckOutput(*graph, output).ok()) return nullptr;
  stepflow::c_api::KnownShape(*graph, output);  // Adds the node if missing.
  const auto* handle = graph->refiner.OutputHandleShapes(
      stepflow::c_api::ToNode(output.oper), output.index);
  if (handle == nullptr) return nullptr;
  stepflow::CppShapeInferenceResult::HandleData data;
  data.set_is_set(true);
  for (const auto& shape_and_type : *handle) {
    auto* out = data.add_shape_and_type();
    stepflow::c_api::ShapeToProto(shape_and_type.shape, out->mutable_shape());
    out->set_dtype(shape_and_type.dtype);
    out->mutable_type();  // No full type is tracked: present and empty.
  }
  TF_Buffer* buffer = TF_NewBuffer();
  stepflow::c_api::SetBufferBytes(data.SerializeAsString(), buffer);
  return buffer;
}

void TF_SetHandleShapeAndType(TF_Graph* graph, TF_Output output,
                              const void* proto, size_t proto_len,
                              TF_Status* status) {
  stepflow::CppShapeInferenceResult::HandleData data;
  if (graph == nullptr || (proto == nullptr && proto_len > 0) ||
      !data.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status,
        absl::InvalidArgumentError("Couldn't deserialize HandleData proto"));
    return;
  }
  absl::MutexLock l(&graph->mu);
  absl::Status s = stepflow::c_api::CheckOutput(*graph, output);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  const stepflow::Node* node = stepflow::c_api::ToNode(output.oper);
  stepflow::c_api::KnownShape(*graph, output);  // Adds the node if missing.
  std::vector<stepflow::shape_inference::ShapeAndType> handle;
  if (data.is_set()) {
    for (const auto& in : data.shape_and_type()) {
      stepflow::shape_inference::ShapeAndType item;
      s = graph->refiner.MakeShapeFromProto(in.shape(), &item.shape);
      if (!s.ok()) {
        Set(status, std::move(s));
        return;
      }
      item.dtype = in.dtype();
      handle.push_back(item);
    }
  }
  Set(status, graph->refiner.SetOutputHandleShapes(node, output.index,
                                                   std::move(handle)));
}

void TF_SetRequireShapeInferenceFns(TF_Graph* graph, bool require) {
  if (graph == nullptr) return;
  absl::MutexLock l(&graph->mu);
  graph->refiner.set_require_shape_fns(require);
}

}  // extern "C"
