// Importing GraphDefs: TF_ImportGraphDefOptions, TF_ImportGraphDefResults
// and the TF_GraphImportGraphDef* entry points.
//
// The options are applied by rewriting the parsed GraphDef before the
// runtime's ImportGraphDef sees it: names get the (possibly uniquified)
// prefix and, with uniquify_names, a "_<n>" suffix where taken; inputs and
// "loc:@" colocation entries naming imported nodes follow the renames;
// mapped inputs and control inputs name the existing operations; nodes
// without imported inputs get the requested control dependencies; nodes
// without a device get the default device. Return outputs and operations
// are checked before anything is added, and the import itself is atomic,
// so a failed call leaves the graph unchanged.
//
// Names in input mappings, control remappings and return requests are the
// GraphDef's own (without the prefix), as in TensorFlow.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace c_api {
namespace {

// "name", "name:3" or "^name" split into (name, index); index -1 for a
// control input. False if malformed.
bool SplitInput(absl::string_view input, std::string* name, int* index) {
  if (absl::ConsumePrefix(&input, "^")) {
    *name = std::string(input);
    *index = -1;
    return true;
  }
  const size_t colon = input.rfind(':');
  if (colon == absl::string_view::npos) {
    *name = std::string(input);
    *index = 0;
    return true;
  }
  *name = std::string(input.substr(0, colon));
  return absl::SimpleAtoi(input.substr(colon + 1), index) && *index >= 0;
}

// True if `name` or anything under "name/" is used in `graph`.
bool NameInUse(const Graph& graph, const std::string& name) {
  for (const Node* n : graph.op_nodes()) {
    if (n->name() == name || absl::StartsWith(n->name(), name + "/")) {
      return true;
    }
  }
  return false;
}

// `base`, or base_1, base_2, ... : the first for which `taken` is false.
template <typename Taken>
std::string Uniquify(const std::string& base, Taken taken) {
  if (!taken(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = absl::StrCat(base, "_", i);
    if (!taken(candidate)) return candidate;
  }
}

}  // namespace

std::string UniqueScope(const Graph& graph, const std::string& base) {
  return Uniquify(base,
                  [&](const std::string& p) { return NameInUse(graph, p); });
}

namespace {

// Output count of `def` per its OpDef; -1 if it cannot be computed (the
// import then reports the node's problem).
int NumOutputs(const Graph& graph, const NodeDef& def) {
  const OpDef* op_def = graph.op_registry()->LookUpOrNull(def.op());
  if (op_def == nullptr) return -1;
  NodeDef with_defaults = def;
  AddDefaultsToNodeDef(*op_def, &with_defaults);
  DataTypeVector outputs;
  if (!OutputTypesForNode(with_defaults, *op_def, &outputs).ok()) return -1;
  return static_cast<int>(outputs.size());
}

absl::Status Import(TF_Graph* graph, GraphDef gdef,
                    const TF_ImportGraphDefOptions* options,
                    TF_ImportGraphDefResults* results)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu) {
  absl::Status s;
  static const TF_ImportGraphDefOptions* const kDefaults =
      new TF_ImportGraphDefOptions;
  const TF_ImportGraphDefOptions& opts =
      options == nullptr ? *kDefaults : *options;
  const Graph& g = graph->graph;

  for (TF_Operation* op : opts.control_dependencies) {
    if (!InGraph(*graph, ToNode(op))) {
      return absl::InvalidArgumentError(
          "control dependency is NULL or not an operation of this graph");
    }
  }
  for (const auto& [src, dst] : opts.input_map) {
    if (!InGraph(*graph, ToNode(dst.oper))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input mapping for '", src.first, ":", src.second,
          "' names an operation that is NULL or not in this graph"));
    }
  }
  for (const auto& [src, dst] : opts.control_map) {
    if (!InGraph(*graph, ToNode(dst))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "control remapping for '", src,
          "' names an operation that is NULL or not in this graph"));
    }
  }

  // Prefix.
  absl::string_view trimmed = opts.prefix;
  while (absl::ConsumeSuffix(&trimmed, "/")) {
  }
  std::string prefix(trimmed);
  if (!prefix.empty()) {
    // A prefix in use is only an error where it makes names collide (the
    // import reports those), as in TensorFlow.
    if (opts.uniquify_prefix) prefix = UniqueScope(g, prefix);
    prefix += "/";
  }

  // New names.
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken;
  for (const NodeDef& n : gdef.node()) {
    std::string name = prefix + n.name();
    if (opts.uniquify_names) {
      name = Uniquify(name, [&](const std::string& c) {
        return taken.count(c) > 0 || g.FindNodeByName(c) != nullptr;
      });
    }
    taken.insert(name);
    renamed[n.name()] = name;
  }

  // Return requests, checked before anything changes.
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : gdef.node()) by_name[n.name()] = &n;
  std::map<std::pair<std::string, int>, TF_Output> mapped;
  for (const auto& [src, dst] : opts.input_map) mapped[src] = dst;
  for (const auto& [name, index] : opts.return_outputs) {
    if (mapped.count({name, index}) > 0) continue;
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Requested return tensor '", name, ":", index,
                       "' not found in graph def"));
    }
    const int outputs = NumOutputs(g, *it->second);
    if (outputs >= 0 && (index < 0 || index >= outputs)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid return output ", index, " of node '", name,
                       "', which has ", outputs, " output(s)"));
    }
  }
  for (const std::string& name : opts.return_operations) {
    if (by_name.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Requested return node '", name, "' not found in graph def"));
    }
  }

  // Rewrite the nodes.
  std::set<std::pair<std::string, int>> used;
  for (NodeDef& n : *gdef.mutable_node()) {
    n.set_name(renamed[n.name()]);
    bool has_imported_input = false;
    for (std::string& input : *n.mutable_input()) {
      std::string src;
      int index;
      if (!SplitInput(input, &src, &index)) continue;  // Import reports it.
      if (index >= 0) {
        auto m = mapped.find({src, index});
        if (m != mapped.end()) {
          used.insert({src, index});
          input = absl::StrCat(ToNode(m->second.oper)->name(), ":",
                               m->second.index);
          continue;
        }
      } else {
        auto m = opts.control_map.find(src);
        if (m != opts.control_map.end()) {
          input = "^" + ToNode(m->second)->name();
          continue;
        }
      }
      auto r = renamed.find(src);
      if (r == renamed.end()) continue;  // Names an existing operation.
      has_imported_input = true;
      input = index < 0 ? "^" + r->second : absl::StrCat(r->second, ":", index);
    }
    if (!has_imported_input) {
      for (TF_Operation* op : opts.control_dependencies) {
        n.add_input("^" + ToNode(op)->name());
      }
    }
    if (n.device().empty()) n.set_device(opts.default_device);
    auto cls = n.mutable_attr()->find("_class");
    if (cls != n.mutable_attr()->end()) {
      for (std::string& entry : *cls->second.mutable_list()->mutable_s()) {
        absl::string_view other = entry;
        if (!absl::ConsumePrefix(&other, "loc:@")) continue;
        auto r = renamed.find(std::string(other));
        if (r != renamed.end()) entry = "loc:@" + r->second;
      }
    }
  }

  GraphConstructorOptions gopts;
  gopts.validate_colocation_constraints = opts.validate_colocation_constraints;
  gopts.merge_output_shapes_attr = true;
  gopts.allow_function_calls = true;
  s = ImportGraphDef(gopts, gdef, &graph->graph, &graph->refiner);
  if (!s.ok() || results == nullptr) return s;

  for (const auto& [name, index] : opts.return_outputs) {
    auto m = mapped.find({name, index});
    if (m != mapped.end()) {
      results->return_outputs.push_back(m->second);
    } else {
      results->return_outputs.push_back(
          TF_Output{ToOperation(g.FindNodeByName(renamed[name])), index});
    }
  }
  for (const std::string& name : opts.return_operations) {
    results->return_operations.push_back(
        ToOperation(g.FindNodeByName(renamed[name])));
  }
  for (const auto& [src, dst] : opts.input_map) {
    // Reported if unused and not an output of the GraphDef.
    if (used.count(src) > 0) continue;
    auto node = by_name.find(src.first);
    if (node != by_name.end() && src.second >= 0 &&
        src.second < NumOutputs(g, *node->second)) {
      continue;
    }
    results->missing_names.push_back(src.first);
    results->missing_indexes.push_back(src.second);
  }
  for (const std::string& name : results->missing_names) {
    results->missing_name_ptrs.push_back(name.c_str());
  }
  return absl::OkStatus();
}

}  // namespace

TF_ImportGraphDefResults* ImportParsed(TF_Graph* graph, bool missing_graph_def,
                                       GraphDef gdef,
                                       const TF_ImportGraphDefOptions* options,
                                       TF_Status* status) {
  if (graph == nullptr || missing_graph_def) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphImportGraphDef: graph and graph_def are "
                    "required"));
    return nullptr;
  }
  auto* results = new TF_ImportGraphDefResults;
  absl::Status s;
  {
    absl::MutexLock l(&graph->mu);
    s = Import(graph, std::move(gdef), options, results);
  }
  if (!s.ok()) {
    delete results;
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return results;
}

}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void) {
  return new TF_ImportGraphDefOptions;
}

void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts) {
  delete opts;
}

void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                       const char* prefix) {
  if (opts != nullptr) opts->prefix = prefix == nullptr ? "" : prefix;
}

void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions* opts,
                                              const char* device) {
  if (opts != nullptr) opts->default_device = device == nullptr ? "" : device;
}

void TF_ImportGraphDefOptionsSetUniquifyNames(TF_ImportGraphDefOptions* opts,
                                              unsigned char uniquify_names) {
  if (opts != nullptr) opts->uniquify_names = uniquify_names != 0;
}

void TF_ImportGraphDefOptionsSetUniquifyPrefix(TF_ImportGraphDefOptions* opts,
                                               unsigned char uniquify_prefix) {
  if (opts != nullptr) opts->uniquify_prefix = uniquify_prefix != 0;
}

void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions* opts,
                                             const char* src_name,
                                             int src_index, TF_Output dst) {
  if (opts == nullptr || src_name == nullptr) return;
  for (auto& entry : opts->input_map) {
    if (entry.first.first == src_name && entry.first.second == src_index) {
      entry.second = dst;
      return;
    }
  }
  opts->input_map.push_back({{src_name, src_index}, dst});
}

void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions* opts, const char* src_name, TF_Operation* dst) {
  if (opts == nullptr || src_name == nullptr) return;
  opts->control_map[src_name] = dst;
}

void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions* opts, TF_Operation* oper) {
  if (opts != nullptr) opts->control_dependencies.push_back(oper);
}

void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions* opts,
                                             const char* oper_name, int index) {
  if (opts == nullptr || oper_name == nullptr) return;
  opts->return_outputs.emplace_back(oper_name, index);
}

int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->return_outputs.size());
}

void TF_ImportGraphDefOptionsAddReturnOperation(TF_ImportGraphDefOptions* opts,
                                                const char* oper_name) {
  if (opts == nullptr || oper_name == nullptr) return;
  opts->return_operations.emplace_back(oper_name);
}

int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->return_operations.size());
}

void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults* results,
                                           int* num_outputs,
                                           TF_Output** outputs) {
  if (results == nullptr || num_outputs == nullptr || outputs == nullptr) {
    return;
  }
  *num_outputs = static_cast<int>(results->return_outputs.size());
  *outputs = results->return_outputs.data();
}

void TF_ImportGraphDefResultsReturnOperations(TF_ImportGraphDefResults* results,
                                              int* num_opers,
                                              TF_Operation*** opers) {
  if (results == nullptr || num_opers == nullptr || opers == nullptr) return;
  *num_opers = static_cast<int>(results->return_operations.size());
  *opers = results->return_operations.data();
}

void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes) {
  if (results == nullptr || num_missing_unused_input_mappings == nullptr ||
      src_names == nullptr || src_indexes == nullptr) {
    return;
  }
  *num_missing_unused_input_mappings =
      static_cast<int>(results->missing_names.size());
  *src_names = results->missing_name_ptrs.data();
  *src_indexes = results->missing_indexes.data();
}

void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results) {
  delete results;
}

TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Status* status) {
  stepflow::GraphDef gdef;
  if (graph != nullptr && graph_def != nullptr) {
    absl::Status s = stepflow::ParseGraphDefFromBinary(
        absl::string_view(static_cast<const char*>(graph_def->data),
                          graph_def->data == nullptr ? 0 : graph_def->length),
        &gdef);
    if (!s.ok()) {
      Set(status, std::move(s));
      return nullptr;
    }
  }
  return stepflow::c_api::ImportParsed(graph, graph_def == nullptr,
                                       std::move(gdef), options, status);
}

TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResultsNoSerialization(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Status* status) {
  const bool missing = graph_def == nullptr || graph_def->data == nullptr;
  stepflow::GraphDef gdef;
  if (!missing) gdef = *static_cast<const stepflow::GraphDef*>(graph_def->data);
  return stepflow::c_api::ImportParsed(graph, missing, std::move(gdef), options,
                                       status);
}

void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph* graph, const TF_Buffer* graph_def,
    const TF_ImportGraphDefOptions* options, TF_Output* return_outputs,
    int num_return_outputs, TF_Status* status) {
  const int expected = TF_ImportGraphDefOptionsNumReturnOutputs(options);
  if (num_return_outputs != expected ||
      (num_return_outputs > 0 && return_outputs == nullptr)) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("Expected 'num_return_outputs' to be ",
                                 expected, ", got ", num_return_outputs)));
    return;
  }
  TF_ImportGraphDefResults* results =
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
  if (results == nullptr) return;
  for (int i = 0; i < num_return_outputs; ++i) {
    return_outputs[i] = results->return_outputs[i];
  }
  delete results;
}

void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options,
                            TF_Status* status) {
  TF_DeleteImportGraphDefResults(
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status));
}

}  // extern "C"
