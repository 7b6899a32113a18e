// TF_Graph: creation and the graph half of the graph refcount
// (TF_DeleteGraph), lookups, GraphDef/OpDef/VersionDef export, the op
// registry as OpLists, and static output shapes.
#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"
#include "proto/versions.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/op.h"
#include "runtime/framework/planted_bug.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace c_api {

std::atomic<int64_t>& LiveGraphCount() {
  static std::atomic<int64_t> count{0};
  return count;
}

}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;
using stepflow::c_api::ToOperation;

TF_Graph::TF_Graph() { stepflow::c_api::LiveGraphCount().fetch_add(1); }

TF_Graph::~TF_Graph() {
  if (!counted_freed_early) stepflow::c_api::LiveGraphCount().fetch_sub(1);
}

extern "C" {

TF_Graph* TF_NewGraph(void) { return new TF_Graph; }

void TF_DeleteGraph(TF_Graph* g) {
  if (g == nullptr) return;
  bool free_now;
  {
    absl::MutexLock l(&g->mu);
    g->delete_requested = true;
    free_now = g->num_sessions() == 0;
    if (!free_now && !g->counted_freed_early &&
        stepflow::PlantedBugActive(stepflow::PlantedBug::kEarlyGraphFree)) {
      // Test-only planted bug (runtime/framework/planted_bug.h): count the
      // graph as freed while sessions hold it; the memory stays valid.
      g->counted_freed_early = true;
      stepflow::c_api::LiveGraphCount().fetch_sub(1);
    }
  }
  if (free_now) delete g;
}

void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                        TF_Status* status) {
  if (graph == nullptr || output_graph_def == nullptr) {
    Set(status,
        absl::InvalidArgumentError(
            "TF_GraphToGraphDef: graph and output buffer are required"));
    return;
  }
  stepflow::GraphDef gdef;
  {
    absl::MutexLock l(&graph->mu);
    graph->graph.ToGraphDef(&gdef);
  }
  std::string bytes;
  if (!gdef.SerializeToString(&bytes)) {
    Set(status, absl::InternalError("could not serialize the GraphDef"));
    return;
  }
  stepflow::c_api::SetBufferBytes(bytes, output_graph_def);
  Set(status, absl::OkStatus());
}

TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name) {
  if (graph == nullptr || oper_name == nullptr) return nullptr;
  absl::MutexLock l(&graph->mu);
  stepflow::Node* n = graph->graph.FindNodeByName(oper_name);
  return n != nullptr && n->IsOp() ? ToOperation(n) : nullptr;
}

int TF_GraphNumOperations(TF_Graph* graph) {
  if (graph == nullptr) return 0;
  absl::MutexLock l(&graph->mu);
  return graph->graph.num_op_nodes();
}

void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name,
                      TF_Buffer* output_op_def, TF_Status* status) {
  if (graph == nullptr || op_name == nullptr || output_op_def == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphGetOpDef: graph, op_name and buffer are "
                    "required"));
    return;
  }
  const stepflow::OpDef* op_def = nullptr;
  absl::Status s;
  {
    absl::MutexLock l(&graph->mu);
    s = graph->graph.op_registry()->LookUp(op_name, &op_def);
  }
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  stepflow::c_api::SetBufferBytes(op_def->SerializeAsString(), output_op_def);
  Set(status, absl::OkStatus());
}

void TF_GraphVersions(TF_Graph* graph, TF_Buffer* output_version_def,
                      TF_Status* status) {
  if (graph == nullptr || output_version_def == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphVersions: graph and buffer are required"));
    return;
  }
  std::string bytes;
  {
    absl::MutexLock l(&graph->mu);
    bytes = graph->graph.versions().SerializeAsString();
  }
  stepflow::c_api::SetBufferBytes(bytes, output_version_def);
  Set(status, absl::OkStatus());
}

TF_Buffer* TF_GetAllOpList(void) {
  stepflow::OpList list;
  const stepflow::OpRegistry* registry = stepflow::OpRegistry::Global();
  for (const std::string& name : registry->ListOps()) {
    const stepflow::OpDef* op_def = registry->LookUpOrNull(name);
    if (op_def != nullptr) *list.add_op() = *op_def;
  }
  TF_Buffer* buffer = TF_NewBuffer();
  stepflow::c_api::SetBufferBytes(list.SerializeAsString(), buffer);
  return buffer;
}

unsigned char TF_TryEvaluateConstant(TF_Graph* graph, TF_Output output,
                                     TF_Tensor** result, TF_Status* status) {
  if (result != nullptr) *result = nullptr;
  if (graph == nullptr || result == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_TryEvaluateConstant: graph and result are required"));
    return 0;
  }
  stepflow::TensorProto proto;
  {
    absl::MutexLock l(&graph->mu);
    const stepflow::Node* node = stepflow::c_api::ToNode(output.oper);
    if (!stepflow::c_api::InGraph(*graph, node) || output.index < 0 ||
        output.index >= node->num_outputs()) {
      Set(status, absl::InvalidArgumentError(
                      "TF_TryEvaluateConstant: not an output of this graph"));
      return 0;
    }
    // Only Const outputs are evaluated (there is no constant folding here).
    auto it = node->def().attr().find("value");
    if (node->type_string() != "Const" || it == node->def().attr().end()) {
      Set(status, absl::OkStatus());
      return 0;
    }
    proto = it->second.tensor();
  }
  stepflow::Tensor t;
  absl::Status s = stepflow::TensorFromProto(proto, &t);
  if (s.ok()) s = stepflow::c_api::TensorToC(t, result);
  Set(status, s);
  return s.ok() ? 1 : 0;
}

TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status) {
  Set(status, absl::UnimplementedError(absl::StrCat(
                  "loading op libraries is not supported (",
                  library_filename == nullptr ? "" : library_filename, ")")));
  return nullptr;
}

TF_Buffer TF_GetOpList(TF_Library* lib_handle) {
  (void)lib_handle;
  // No library can be loaded, so none registered any op.
  return TF_Buffer{nullptr, 0, nullptr};
}

void TF_DeleteLibraryHandle(TF_Library* lib_handle) { (void)lib_handle; }

}  // extern "C"
