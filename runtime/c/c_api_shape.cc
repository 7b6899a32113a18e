// Static output shapes: TF_GraphSetTensorShape, TF_GraphGetTensorNumDims,
// TF_GraphGetTensorShape.
//
// The runtime has no shape inference. What it knows about an output is the
// shape recorded with TF_GraphSetTensorShape, merged into what the graph
// itself states: a Placeholder's (or PlaceholderWithDefault's) "shape"
// attr, a Const's value, or an "_output_shapes" attr. Anything else has an
// unknown rank. Records live in the TF_Graph, under its lock.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

namespace stepflow {
namespace c_api {
namespace {

// A shape as the C API reports it; rank -1 is unknown.
struct StaticShape {
  int rank = -1;
  std::vector<int64_t> dims;
};

StaticShape FromProto(const TensorShapeProto& proto) {
  StaticShape s;
  if (proto.unknown_rank()) return s;
  s.rank = proto.dim_size();
  for (const auto& d : proto.dim())
    s.dims.push_back(d.size() < 0 ? -1 : d.size());
  return s;
}

// What the graph states about output `index` of `node`.
StaticShape StatedShape(const Node& node, int index) {
  const auto& attrs = node.def().attr();
  const std::string& op = node.type_string();
  if (op == "Placeholder" || op == "PlaceholderV2" ||
      op == "PlaceholderWithDefault") {
    auto it = attrs.find("shape");
    if (it != attrs.end() && it->second.has_shape()) {
      return FromProto(it->second.shape());
    }
  }
  if (op == "Const") {
    auto it = attrs.find("value");
    if (it != attrs.end() && it->second.has_tensor()) {
      return FromProto(it->second.tensor().tensor_shape());
    }
  }
  auto it = attrs.find("_output_shapes");
  if (it != attrs.end() && index < it->second.list().shape_size()) {
    return FromProto(it->second.list().shape(index));
  }
  return StaticShape();
}

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

StaticShape KnownShape(const TF_Graph& graph, TF_Output out)
    ABSL_SHARED_LOCKS_REQUIRED(graph.mu) {
  const Node* node = ToNode(out.oper);
  auto it = graph.shapes.find({node->id(), out.index});
  if (it != graph.shapes.end()) {
    StaticShape s;
    s.rank = static_cast<int>(it->second.size());
    s.dims = it->second;
    return s;
  }
  return StatedShape(*node, out.index);
}

// "[2,?,3]".
std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",",
                    dims[i] < 0 ? "?" : absl::StrCat(dims[i]));
  }
  return out + "]";
}

// Merges `dims` into `known`; InvalidArgument if they are incompatible.
absl::Status Merge(const StaticShape& known, const int64_t* dims, int num_dims,
                   std::vector<int64_t>* merged) {
  merged->assign(dims, dims + num_dims);
  for (int64_t& d : *merged) {
    if (d < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid dimension ", d, " (only -1 is unknown)"));
    }
  }
  if (known.rank < 0) return absl::OkStatus();
  if (known.rank != num_dims) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shapes must be equal rank, but are ", known.rank, " and ", num_dims));
  }
  for (int i = 0; i < num_dims; ++i) {
    const int64_t a = known.dims[i];
    int64_t& b = (*merged)[i];
    if (a >= 0 && b >= 0 && a != b) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", i,
                       " in both shapes must be equal, but "
                       "are ",
                       a, " and ", b));
    }
    if (b < 0) b = a;
  }
  return absl::OkStatus();
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
  std::vector<int64_t> merged;
  s = stepflow::c_api::Merge(stepflow::c_api::KnownShape(*graph, output), dims,
                             num_dims, &merged);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  graph->shapes[{stepflow::c_api::ToNode(output.oper)->id(), output.index}] =
      std::move(merged);
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
  return stepflow::c_api::KnownShape(*graph, output).rank;
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
  const auto shape = stepflow::c_api::KnownShape(*graph, output);
  if (shape.rank < 0) {
    // Unknown rank: nothing to fill, as TensorFlow does.
    Set(status, absl::OkStatus());
    return;
  }
  if (num_dims != shape.rank) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("Expected rank is ", shape.rank,
                                 " but actual rank is ", num_dims)));
    return;
  }
  for (int i = 0; i < num_dims; ++i) dims[i] = shape.dims[i];
  Set(status, absl::OkStatus());
}

}  // extern "C"
