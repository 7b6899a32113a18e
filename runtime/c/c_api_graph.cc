// TF_Graph, TF_ImportGraphDefOptions and TF_Operation accessors, including
// the graph half of the graph refcount (TF_DeleteGraph).
#include <atomic>
#include <cstdint>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/planted_bug.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace c_api {

std::atomic<int64_t>& LiveGraphCount() {
  static std::atomic<int64_t> count{0};
  return count;
}

namespace {

// Renames every node of `gdef` to "<prefix><name>" and rewrites inputs and
// "loc:@" colocation entries that name nodes of `gdef`; other inputs keep
// naming nodes already in the graph.
void ApplyPrefix(const std::string& prefix, GraphDef* gdef) {
  std::set<std::string> names;
  for (const NodeDef& n : gdef->node()) names.insert(n.name());
  for (NodeDef& n : *gdef->mutable_node()) {
    n.set_name(prefix + n.name());
    for (std::string& input : *n.mutable_input()) {
      const bool control = absl::StartsWith(input, "^");
      absl::string_view rest = absl::string_view(input).substr(control ? 1 : 0);
      const size_t colon = rest.rfind(':');
      const absl::string_view base =
          colon == absl::string_view::npos ? rest : rest.substr(0, colon);
      if (names.count(std::string(base)) == 0) continue;
      input = absl::StrCat(control ? "^" : "", prefix, rest);
    }
    // Colocation with a node of the GraphDef follows its new name.
    auto cls = n.mutable_attr()->find("_class");
    if (cls == n.mutable_attr()->end()) continue;
    for (std::string& entry : *cls->second.mutable_list()->mutable_s()) {
      absl::string_view other = entry;
      if (absl::ConsumePrefix(&other, "loc:@") &&
          names.count(std::string(other)) != 0) {
        entry = absl::StrCat("loc:@", prefix, other);
      }
    }
  }
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;
using stepflow::c_api::ToNode;
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

TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void) {
  return new TF_ImportGraphDefOptions;
}

void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts) {
  delete opts;
}

void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                       const char* prefix) {
  if (opts == nullptr) return;
  opts->prefix = prefix == nullptr ? "" : prefix;
}

void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options,
                            TF_Status* status) {
  if (graph == nullptr || graph_def == nullptr) {
    Set(status,
        absl::InvalidArgumentError(
            "TF_GraphImportGraphDef: graph and graph_def are required"));
    return;
  }
  stepflow::GraphDef gdef;
  absl::Status s = stepflow::ParseGraphDefFromBinary(
      absl::string_view(static_cast<const char*>(graph_def->data),
                        graph_def->data == nullptr ? 0 : graph_def->length),
      &gdef);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  if (options != nullptr && !options->prefix.empty()) {
    std::string prefix = options->prefix;
    if (!absl::EndsWith(prefix, "/")) prefix += "/";
    stepflow::c_api::ApplyPrefix(prefix, &gdef);
  }
  // As TensorFlow's import: "loc:@x" must name a node of the GraphDef.
  stepflow::GraphConstructorOptions gopts;
  gopts.validate_colocation_constraints = true;
  absl::MutexLock l(&graph->mu);
  Set(status, stepflow::ImportGraphDef(gopts, gdef, &graph->graph));
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

const char* TF_OperationName(TF_Operation* oper) {
  return ToNode(oper)->name().c_str();
}

const char* TF_OperationOpType(TF_Operation* oper) {
  return ToNode(oper)->type_string().c_str();
}

const char* TF_OperationDevice(TF_Operation* oper) {
  return ToNode(oper)->requested_device().c_str();
}

int TF_OperationNumOutputs(TF_Operation* oper) {
  return ToNode(oper)->num_outputs();
}

int TF_OperationNumInputs(TF_Operation* oper) {
  return ToNode(oper)->num_inputs();
}

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  const stepflow::Node* n = ToNode(oper_out.oper);
  if (n == nullptr || oper_out.index < 0 ||
      oper_out.index >= n->num_outputs()) {
    return static_cast<TF_DataType>(0);
  }
  return static_cast<TF_DataType>(n->output_type(oper_out.index));
}

}  // extern "C"
