#include "runtime/graph/subgraph.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/graph/algorithm.h"

namespace stepflow::subgraph {
namespace {

// A validated endpoint of the graph being rewritten.
struct ResolvedEndpoint {
  Node* node = nullptr;
  int index = 0;
};

// Checks that describe the request alone, before the graph is consulted.
absl::Status CheckRequest(absl::Span<const std::string> fed_outputs,
                          absl::Span<const std::string> fetch_outputs,
                          absl::Span<const std::string> target_node_names) {
  if (fetch_outputs.empty() && target_node_names.empty()) {
    return absl::InvalidArgumentError(
        "Must specify at least one target to fetch or execute.");
  }
  std::set<TensorId> fed;
  for (const std::string& feed : fed_outputs) {
    const TensorId id = ParseTensorName(feed);
    if (!fed.insert(id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Endpoint \"", id.ToString(), "\" fed more than once."));
    }
  }
  for (const std::string& fetch : fetch_outputs) {
    const TensorId id = ParseTensorName(fetch);
    if (fed.count(id) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(id.ToString(), " is both fed and fetched."));
    }
  }
  return absl::OkStatus();
}

// The op node called `name`, or null (SOURCE/SINK are not addressable).
Node* FindOpNode(const Graph& g, const std::string& name) {
  Node* n = g.FindNodeByName(name);
  return n != nullptr && n->IsOp() ? n : nullptr;
}

absl::Status ResolveFeeds(const Graph& g,
                          absl::Span<const std::string> fed_outputs,
                          std::vector<ResolvedEndpoint>* feeds) {
  for (const std::string& feed : fed_outputs) {
    const TensorId id = ParseTensorName(feed);
    Node* n = FindOpNode(g, id.node);
    if (n == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "FeedInputs: unable to find feed output ", id.ToString()));
    }
    if (id.index < 0 || id.index >= n->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("FeedInputs: ", id.ToString(), " is not an output of ",
                       FormatNodeName(n->name()), ", which has ",
                       n->num_outputs(), " output(s)"));
    }
    feeds->push_back({n, id.index});
  }
  return absl::OkStatus();
}

absl::Status ResolveFetches(const Graph& g,
                            absl::Span<const std::string> fetch_outputs,
                            std::vector<ResolvedEndpoint>* fetches) {
  for (const std::string& fetch : fetch_outputs) {
    const TensorId id = ParseTensorName(fetch);
    Node* n = FindOpNode(g, id.node);
    if (n == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("FetchOutputs node ", id.ToString(), ": not found"));
    }
    if (n->num_outputs() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tried to fetch data for '", id.ToString(), "', but ",
          FormatNodeName(n->name()),
          " produces no output. To run a node without fetching data, pass '",
          n->name(), "' as a target node."));
    }
    if (id.index < 0 || id.index >= n->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FetchOutputs ", id.ToString(), ": output index out of range, ",
          FormatNodeName(n->name()), " has ", n->num_outputs(), " output(s)"));
    }
    fetches->push_back({n, id.index});
  }
  return absl::OkStatus();
}

absl::Status ResolveTargets(const Graph& g,
                            absl::Span<const std::string> target_node_names,
                            std::vector<Node*>* targets) {
  for (const std::string& name : target_node_names) {
    Node* n = FindOpNode(g, name);
    if (n == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("PruneForTargets: Some target nodes not found: ", name));
    }
    targets->push_back(n);
  }
  return absl::OkStatus();
}

// Adds `def` placed on the client device.
absl::StatusOr<Node*> AddClientNode(Graph* g, NodeDef def,
                                    const DeviceAttributes& device_info) {
  def.set_device(device_info.name());
  SF_ASSIGN_OR_RETURN(Node * n, g->AddNode(std::move(def)));
  n->set_assigned_device_name(device_info.name());
  return n;
}

// Attrs shared by the client-terminated _Send/_Recv of one endpoint.
void AddClientTransferAttrs(const std::string& tensor_name,
                            const DeviceAttributes& device_info, NodeDef* def) {
  AddNodeAttr("tensor_name", tensor_name, def);
  AddNodeAttr("send_device", device_info.name(), def);
  AddNodeAttr("send_device_incarnation",
              static_cast<int64_t>(device_info.incarnation()), def);
  AddNodeAttr("recv_device", device_info.name(), def);
  AddNodeAttr("client_terminated", true, def);
}

// Placeholder proper (not PlaceholderWithDefault, which may run unfed).
bool IsPlaceholderOp(const Node* n) {
  return n->type_string() == "Placeholder" ||
         n->type_string() == "PlaceholderV2";
}

// A fed value is a plain tensor, never a reference: if a node the request
// needs takes a fed ref-typed output by reference (Assign,
// ApplyGradientDescent...), the request is InvalidArgument. Only nodes that
// survive pruning count (feeding a variable that an unused initializer
// assigns is fine), so this walks back from the fetches and targets as the
// pruner will, without touching the graph.
absl::Status CheckNoFedReferenceIsNeeded(
    const Graph& g, const std::vector<ResolvedEndpoint>& feeds,
    const std::vector<ResolvedEndpoint>& fetches,
    const std::vector<Node*>& targets) {
  std::set<std::pair<int, int>> fed;
  std::set<int> fed_placeholders;
  bool any_ref = false;
  for (const ResolvedEndpoint& ep : feeds) {
    fed.insert({ep.node->id(), ep.index});
    if (IsPlaceholderOp(ep.node)) fed_placeholders.insert(ep.node->id());
    any_ref = any_ref || IsRefType(ep.node->output_type(ep.index));
  }
  if (!any_ref) return absl::OkStatus();
  std::vector<bool> visited(g.num_node_ids(), false);
  std::vector<const Node*> stack;
  for (const ResolvedEndpoint& ep : fetches) stack.push_back(ep.node);
  for (const Node* n : targets) stack.push_back(n);
  for (const Node* n : stack) visited[n->id()] = true;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      const Node* src = e->src();
      if (!src->IsOp()) continue;
      if (!e->IsControlEdge() && fed.count({src->id(), e->src_output()}) > 0) {
        if (IsRefType(n->input_type(e->dst_input()))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "FeedInputs: cannot feed ", src->name(), ":", e->src_output(),
              " (", DataTypeString(src->output_type(e->src_output())), "): ",
              FormatNodeName(n->name()), " takes it by reference as input ",
              e->dst_input(), ", and a fed value is not a reference"));
        }
        continue;  // The feed replaces the producer here.
      }
      if (e->IsControlEdge() && fed_placeholders.count(src->id()) > 0) continue;
      if (!visited[src->id()]) {
        visited[src->id()] = true;
        stack.push_back(src);
      }
    }
  }
  return absl::OkStatus();
}

// Rewires every consumer of feed `ep` (argument `arg_index`) to a new feed
// node hanging off SOURCE.
absl::Status FeedInput(Graph* g, const ResolvedEndpoint& ep, int arg_index,
                       const DeviceAttributes& device_info,
                       bool use_function_convention) {
  Node* n = ep.node;
  const DataType dtype = BaseType(n->output_type(ep.index));
  NodeDef def;
  if (use_function_convention) {
    def.set_name(
        absl::StrCat("_arg_", n->name(), "_", ep.index, "_", arg_index));
    def.set_op("_Arg");
    AddNodeAttr("T", dtype, &def);
    AddNodeAttr("index", static_cast<int64_t>(arg_index), &def);
  } else {
    def.set_name(absl::StrCat("_recv_", n->name(), "_", ep.index));
    def.set_op("_Recv");
    AddNodeAttr("tensor_type", dtype, &def);
    AddClientTransferAttrs(absl::StrCat(n->name(), ":", ep.index), device_info,
                           &def);
  }
  SF_ASSIGN_OR_RETURN(Node * feed_node,
                      AddClientNode(g, std::move(def), device_info));
  g->AddControlEdge(g->source_node(), feed_node, /*allow_duplicates=*/true);

  // A fed Placeholder must not run at all, so its control successors wait
  // for the feed instead.
  const bool move_control_edges = IsPlaceholderOp(n);
  std::vector<const Edge*> to_move;
  for (const Edge* e : n->out_edges()) {
    if (e->src_output() == ep.index ||
        (e->IsControlEdge() && move_control_edges)) {
      to_move.push_back(e);
    }
  }
  for (const Edge* e : to_move) {
    Node* dst = e->dst();
    const bool is_control = e->IsControlEdge();
    const int dst_input = e->dst_input();
    g->RemoveEdge(e);
    if (is_control) {
      g->AddControlEdge(feed_node, dst, /*allow_duplicates=*/true);
    } else {
      g->AddEdge(feed_node, 0, dst, dst_input);
    }
  }
  return absl::OkStatus();
}

// Adds the fetch nodes (one per fetch; with the send/recv convention one per
// distinct endpoint) and returns them in `fetch_nodes`.
absl::Status FetchOutputs(Graph* g,
                          const std::vector<ResolvedEndpoint>& fetches,
                          const DeviceAttributes& device_info,
                          bool use_function_convention,
                          std::vector<const Node*>* fetch_nodes) {
  std::map<std::pair<int, int>, Node*> send_by_endpoint;
  for (size_t i = 0; i < fetches.size(); ++i) {
    Node* n = fetches[i].node;
    const int index = fetches[i].index;
    if (!use_function_convention) {
      auto it = send_by_endpoint.find({n->id(), index});
      if (it != send_by_endpoint.end()) continue;
    }
    const DataType dtype = BaseType(n->output_type(index));
    const std::string input =
        index == 0 ? n->name() : absl::StrCat(n->name(), ":", index);
    NodeDef def;
    if (use_function_convention) {
      def.set_name(absl::StrCat("_retval_", n->name(), "_", index, "_", i));
      def.set_op("_Retval");
      AddNodeAttr("T", dtype, &def);
      AddNodeAttr("index", static_cast<int64_t>(i), &def);
    } else {
      def.set_name(absl::StrCat("_send_", n->name(), "_", index));
      def.set_op("_Send");
      AddNodeAttr("T", dtype, &def);
      AddClientTransferAttrs(absl::StrCat(n->name(), ":", index), device_info,
                             &def);
    }
    def.add_input(input);
    SF_ASSIGN_OR_RETURN(Node * fetch_node,
                        AddClientNode(g, std::move(def), device_info));
    g->AddEdge(n, index, fetch_node, 0);
    g->AddControlEdge(fetch_node, g->sink_node(), /*allow_duplicates=*/true);
    if (!use_function_convention) {
      send_by_endpoint[{n->id(), index}] = fetch_node;
    }
    fetch_nodes->push_back(fetch_node);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RewriteGraphForExecution(
    Graph* g, absl::Span<const std::string> fed_outputs,
    absl::Span<const std::string> fetch_outputs,
    absl::Span<const std::string> target_node_names,
    const DeviceAttributes& device_info, bool use_function_convention,
    RewriteGraphMetadata* out_metadata) {
  SF_RETURN_IF_ERROR(
      CheckRequest(fed_outputs, fetch_outputs, target_node_names));

  std::vector<ResolvedEndpoint> feeds;
  std::vector<ResolvedEndpoint> fetches;
  std::vector<Node*> targets;
  SF_RETURN_IF_ERROR(ResolveFeeds(*g, fed_outputs, &feeds));
  SF_RETURN_IF_ERROR(ResolveFetches(*g, fetch_outputs, &fetches));
  SF_RETURN_IF_ERROR(ResolveTargets(*g, target_node_names, &targets));
  SF_RETURN_IF_ERROR(CheckNoFedReferenceIsNeeded(*g, feeds, fetches, targets));

  // Types are read before rewriting: a fed node may be pruned later.
  RewriteGraphMetadata metadata;
  for (const ResolvedEndpoint& ep : feeds) {
    metadata.feed_types.push_back(BaseType(ep.node->output_type(ep.index)));
  }
  for (const ResolvedEndpoint& ep : fetches) {
    metadata.fetch_types.push_back(BaseType(ep.node->output_type(ep.index)));
  }

  for (size_t i = 0; i < feeds.size(); ++i) {
    SF_RETURN_IF_ERROR(FeedInput(g, feeds[i], static_cast<int>(i), device_info,
                                 use_function_convention));
  }
  std::vector<const Node*> roots;
  SF_RETURN_IF_ERROR(
      FetchOutputs(g, fetches, device_info, use_function_convention, &roots));
  roots.insert(roots.end(), targets.begin(), targets.end());

  PruneForReverseReachability(g, std::move(roots));
  FixupSourceAndSinkEdges(g);

  if (out_metadata != nullptr) *out_metadata = std::move(metadata);
  return absl::OkStatus();
}

}  // namespace stepflow::subgraph
