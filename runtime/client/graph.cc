#include "runtime/client/graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace client {

struct GraphState {
  absl::Mutex mu;
  GraphDef def ABSL_GUARDED_BY(mu);
  // Node name -> output dtypes.
  std::map<std::string, std::vector<DataType>> types ABSL_GUARDED_BY(mu);
  // Names handed out by UniqueName (and every node name).
  std::set<std::string> reserved ABSL_GUARDED_BY(mu);
};

namespace {

thread_local std::vector<std::shared_ptr<GraphState>>* default_stack = nullptr;

std::vector<std::shared_ptr<GraphState>>& DefaultStack() {
  if (default_stack == nullptr) {
    default_stack = new std::vector<std::shared_ptr<GraphState>>();
  }
  return *default_stack;
}

// Splits a NodeDef input into (node, index); index -1 for "^node".
bool ParseInput(const std::string& input, std::string* node, int* index) {
  if (!input.empty() && input[0] == '^') {
    *node = input.substr(1);
    *index = -1;
    return !node->empty();
  }
  const size_t colon = input.rfind(':');
  if (colon == std::string::npos) {
    *node = input;
    *index = 0;
    return !node->empty();
  }
  *node = input.substr(0, colon);
  return !node->empty() && absl::SimpleAtoi(input.substr(colon + 1), index) &&
         *index >= 0;
}

}  // namespace

Graph::Graph() : state_(std::make_shared<GraphState>()) {}

absl::Status Graph::AddNode(NodeDef def,
                            std::vector<DataType>* output_types) const {
  const OpDef* op_def = nullptr;
  absl::Status s = OpRegistry::Global()->LookUp(def.op(), &op_def);
  if (!s.ok()) {
    return absl::NotFoundError(absl::StrCat(
        "Cannot add ", FormatNodeName(def.name()), ": ", s.message()));
  }
  AddDefaultsToNodeDef(*op_def, &def);
  auto annotate = [&](const absl::Status& st) {
    return absl::Status(
        st.code(), absl::StrCat("Cannot add ", FormatNodeName(def.name()), ": ",
                                st.message()));
  };
  s = ValidateNodeName(def.name());
  if (!s.ok()) return annotate(s);
  s = ValidateNodeDef(def, *op_def);
  if (!s.ok()) return annotate(s);
  DataTypeVector in_types, out_types;
  s = InOutTypesForNode(def, *op_def, &in_types, &out_types);
  if (!s.ok()) return annotate(s);

  absl::MutexLock l(&state_->mu);
  if (state_->types.count(def.name()) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("Cannot add ", FormatNodeName(def.name()),
                     ": the graph already has a node with that name"));
  }
  size_t data_index = 0;
  for (const std::string& input : def.input()) {
    std::string src;
    int index = 0;
    if (!ParseInput(input, &src, &index)) {
      return annotate(absl::InvalidArgumentError(
          absl::StrCat("malformed input '", input, "'")));
    }
    auto it = state_->types.find(src);
    if (it == state_->types.end()) {
      return annotate(absl::NotFoundError(
          absl::StrCat("input '", input, "' names no node of this graph")));
    }
    if (index < 0) continue;
    if (index >= static_cast<int>(it->second.size())) {
      return annotate(absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': ", FormatNodeName(src), " has ",
                       it->second.size(), " outputs")));
    }
    if (data_index >= in_types.size()) {
      return annotate(absl::InvalidArgumentError("too many data inputs"));
    }
    const DataType have = it->second[index];
    const DataType want = in_types[data_index++];
    const bool ok = IsRefType(want) ? have == want : BaseType(have) == want;
    if (!ok) {
      return annotate(absl::InvalidArgumentError(
          absl::StrCat("input ", data_index - 1, " ('", input, "') has type ",
                       DataTypeString(have), " but ", def.op(), " expects ",
                       DataTypeString(want))));
    }
  }
  if (data_index != in_types.size()) {
    return annotate(absl::InvalidArgumentError(
        absl::StrCat(def.op(), " expects ", in_types.size(),
                     " data inputs, got ", data_index)));
  }
  state_->types[def.name()].assign(out_types.begin(), out_types.end());
  state_->reserved.insert(def.name());
  *state_->def.add_node() = std::move(def);
  if (output_types != nullptr) {
    output_types->assign(out_types.begin(), out_types.end());
  }
  return absl::OkStatus();
}

std::string Graph::UniqueName(absl::string_view base) const {
  absl::MutexLock l(&state_->mu);
  std::string name(base);
  for (int i = 1; state_->reserved.count(name) > 0; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  state_->reserved.insert(name);
  return name;
}

absl::Status Graph::OutputTypes(absl::string_view name,
                                std::vector<DataType>* types) const {
  absl::MutexLock l(&state_->mu);
  auto it = state_->types.find(std::string(name));
  if (it == state_->types.end()) {
    return absl::NotFoundError(
        absl::StrCat("The graph has no node named '", name, "'"));
  }
  *types = it->second;
  return absl::OkStatus();
}

int Graph::num_nodes() const {
  absl::MutexLock l(&state_->mu);
  return state_->def.node_size();
}

GraphDef Graph::ToGraphDef() const {
  absl::MutexLock l(&state_->mu);
  return state_->def;
}

GraphDef Graph::NodesSince(int from, int* num_nodes) const {
  absl::MutexLock l(&state_->mu);
  GraphDef out;
  for (int i = std::max(from, 0); i < state_->def.node_size(); ++i) {
    *out.add_node() = state_->def.node(i);
  }
  *num_nodes = state_->def.node_size();
  return out;
}

Graph::DefaultGuard::DefaultGuard(const Graph& graph) : state_(graph.state_) {
  DefaultStack().push_back(state_);
}

Graph::DefaultGuard::~DefaultGuard() {
  auto& stack = DefaultStack();
  // Normally the top; tolerate out-of-order destruction.
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (*it == state_) {
      stack.erase(std::next(it).base());
      break;
    }
  }
}

Graph Graph::Default() {
  auto& stack = DefaultStack();
  if (!stack.empty()) return Graph(stack.back());
  static auto* process_default =
      new std::shared_ptr<GraphState>(std::make_shared<GraphState>());
  return Graph(*process_default);
}

std::string Output::name() const {
  return index_ == 0 ? op_.name() : absl::StrCat(op_.name(), ":", index_);
}

}  // namespace client
}  // namespace stepflow
