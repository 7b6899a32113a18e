#include "runtime/graph/conv_epilogue_fusion.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"
#include "runtime/graph/shape_refiner.h"

namespace stepflow {
namespace {

// Ancestors shape inference may visit for all of a graph's chains at most;
// past it nothing is fused (a frozen model needs a few per chain).
constexpr int kMaxInferredNodes = 200000;

// One output of a node.
struct Port {
  Node* node = nullptr;
  int index = 0;
};

// A convolution and the nodes it can absorb, before shapes are checked.
// Only nodes of this chain are named: rewriting another chain (which may
// replace this convolution's producers) leaves them in place.
struct Chain {
  Node* conv = nullptr;
  struct Member {
    Node* node;
    std::string step;    // "Mul", "BiasAdd", "Relu" or "Relu6"
    int arg_input = -1;  // for Mul and BiasAdd: the operand's input slot
  };
  std::vector<Member> members;
};

bool IsFloatNode(const Node& n) {
  DataType t = DT_INVALID;
  return GetNodeAttr(n.def(), "T", &t).ok() && t == DT_FLOAT;
}

bool IsChannelsLast(const Node& n) {
  std::string format = "NHWC";
  if (n.def().attr().contains("data_format")) {
    if (!GetNodeAttr(n.def(), "data_format", &format).ok()) return false;
  }
  return format == "NHWC";
}

bool OnCpu(const Node& n) {
  DeviceNameUtils::ParsedName parsed;
  return DeviceNameUtils::ParseFullName(n.assigned_device_name(), &parsed) &&
         parsed.has_type && parsed.type == "CPU";
}

// The data in-edge into `n`'s input `index`, or null.
const Edge* InEdge(const Node& n, int index) {
  const Edge* e = nullptr;
  return n.input_edge(index, &e).ok() ? e : nullptr;
}

// `n`'s only consumer when `n` has exactly one out-edge, a data edge from
// output 0 (so it is not fetched and no control edge waits on it).
Node* SoleConsumer(const Node& n) {
  if (n.out_edges().size() != 1) return nullptr;
  const Edge* e = *n.out_edges().begin();
  if (e->IsControlEdge() || e->src_output() != 0) return nullptr;
  return e->dst();
}

// The step `next` adds after `cur`, with its other operand; nullopt when
// `next` cannot join.
std::optional<Chain::Member> AsMember(const Node& cur, Node* next) {
  const std::string& op = next->type_string();
  if (!IsFloatNode(*next)) return std::nullopt;
  if (op == "Relu" || op == "Relu6") return Chain::Member{next, op, -1};
  const bool binary = op == "Mul" || op == "Add" || op == "AddV2";
  if (!binary && op != "BiasAdd") return std::nullopt;
  if (op == "BiasAdd" && !IsChannelsLast(*next)) return std::nullopt;
  const Edge* in0 = InEdge(*next, 0);
  const Edge* in1 = InEdge(*next, 1);
  if (in0 == nullptr || in1 == nullptr) return std::nullopt;
  const bool cur_first = in0->src() == &cur;
  const bool cur_second = in1->src() == &cur;
  if (cur_first == cur_second) return std::nullopt;  // x op x, or neither
  if (op == "BiasAdd" && !cur_first) return std::nullopt;
  return Chain::Member{next, op == "Mul" ? "Mul" : "BiasAdd",
                       cur_first ? 1 : 0};
}

// What feeds `n`'s input `index` now.
Port Producer(const Node& n, int index) {
  const Edge* e = InEdge(n, index);
  return Port{e->src(), e->src_output()};
}

std::optional<Chain> FindChain(Node* conv) {
  const std::string& op = conv->type_string();
  if (op != "Conv2D" && op != "DepthwiseConv2dNative") return std::nullopt;
  if (!IsFloatNode(*conv) || !IsChannelsLast(*conv) || !OnCpu(*conv)) {
    return std::nullopt;
  }
  if (InEdge(*conv, 0) == nullptr || InEdge(*conv, 1) == nullptr) {
    return std::nullopt;
  }
  Chain chain;
  chain.conv = conv;
  Node* cur = conv;
  while (Node* next = SoleConsumer(*cur)) {
    if (next->assigned_device_name() != conv->assigned_device_name()) break;
    std::optional<Chain::Member> m = AsMember(*cur, next);
    if (!m.has_value()) break;
    chain.members.push_back(std::move(*m));
    cur = next;
  }
  if (chain.members.empty()) return std::nullopt;
  return chain;
}

// The ancestors of `roots` along data edges (roots included), producers
// before consumers (a loop's back edge is dropped where the walk meets
// it), at most `budget` in all; false when there are more.
bool CollectAncestors(const std::vector<Node*>& roots, int budget,
                      std::vector<Node*>* out) {
  enum State { kInProgress, kDone };
  absl::flat_hash_map<const Node*, State> state;
  // (node, whether its inputs have been pushed): a node is emitted when it
  // comes off the stack the second time, after everything it reads.
  std::vector<std::pair<Node*, bool>> stack;
  for (Node* r : roots) {
    stack.push_back({r, false});
    while (!stack.empty()) {
      auto [n, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        state[n] = kDone;
        out->push_back(n);
        continue;
      }
      if (!state.emplace(n, kInProgress).second) continue;  // met already
      if (static_cast<int>(state.size()) > budget) return false;
      stack.push_back({n, true});
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge() || !e->src()->IsOp()) continue;
        if (!state.contains(e->src())) stack.push_back({e->src(), false});
      }
    }
  }
  return true;
}

// The dims of `port` as inferred, or nullopt when its rank is unknown.
std::optional<std::vector<int64_t>> Dims(const ShapeRefiner& refiner,
                                         const Port& port) {
  if (!refiner.HasNode(port.node)) return std::nullopt;
  TensorShapeProto proto;
  refiner.OutputShapeProto(port.node, port.index, &proto);
  if (proto.unknown_rank()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return dims;
}

// The convolution's output channels from its filter's shape, or -1.
int64_t OutputChannels(const ShapeRefiner& refiner, const Chain& chain) {
  std::optional<std::vector<int64_t>> f =
      Dims(refiner, Producer(*chain.conv, 1));
  if (!f.has_value() || f->size() != 4) return -1;
  const int64_t a = (*f)[2], b = (*f)[3];
  if (chain.conv->type_string() == "Conv2D") return b;
  return a >= 0 && b >= 0 ? a * b : -1;
}

// [C], or [1, C], [1, 1, C], [1, 1, 1, C] (how Keras reshapes a batch
// norm's parameters): against a 4-D output each broadcasts per channel and
// leaves the shape alone. A BiasAdd's bias is 1-D in any case (or its own
// shape check fails the same way fused or not).
bool IsChannelVector(const std::vector<int64_t>& dims, int64_t channels) {
  if (dims.empty() || dims.size() > 4 || dims.back() != channels) return false;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    if (dims[i] != 1) return false;
  }
  return true;
}

// The members that can be folded: a prefix of the chain whose operands
// are proven vectors of `channels` values.
size_t ProvenPrefix(const ShapeRefiner& refiner, const Chain& chain,
                    int64_t channels) {
  if (channels < 0) return 0;
  size_t n = 0;
  for (const Chain::Member& m : chain.members) {
    if (m.arg_input >= 0) {
      std::optional<std::vector<int64_t>> d =
          Dims(refiner, Producer(*m.node, m.arg_input));
      if (!d.has_value() || !IsChannelVector(*d, channels)) break;
      if (m.node->type_string() == "BiasAdd" && d->size() != 1) break;
    }
    ++n;
  }
  return n;
}

absl::Status Rewrite(Graph* g, const Chain& chain, size_t members) {
  Node* conv = chain.conv;
  Node* last = chain.members[members - 1].node;
  NodeDef def;
  def.set_name(last->name());
  def.set_op(conv->type_string() == "Conv2D"
                 ? "_Conv2DWithEpilogue"
                 : "_DepthwiseConv2dNativeWithEpilogue");
  def.set_device(conv->requested_device());
  for (const auto& [name, value] : conv->def().attr()) {
    (*def.mutable_attr())[name] = value;
  }
  AttrValue steps;
  std::vector<Port> inputs = {Producer(*conv, 0), Producer(*conv, 1)};
  for (size_t i = 0; i < members; ++i) {
    const Chain::Member& m = chain.members[i];
    steps.mutable_list()->add_s(m.step);
    if (m.arg_input >= 0) inputs.push_back(Producer(*m.node, m.arg_input));
  }
  (*def.mutable_attr())["epilogue"] = steps;
  AttrValue num_args;
  num_args.set_i(static_cast<int64_t>(inputs.size()) - 2);
  (*def.mutable_attr())["num_args"] = num_args;
  for (const Port& p : inputs) {
    def.add_input(p.index == 0 ? p.node->name()
                               : absl::StrCat(p.node->name(), ":", p.index));
  }

  // Everything the fused node inherits, gathered before the members go.
  std::vector<Node*> control_inputs;
  std::vector<Node*> members_and_conv = {conv};
  for (size_t i = 0; i < members; ++i) {
    members_and_conv.push_back(chain.members[i].node);
  }
  for (Node* n : members_and_conv) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) control_inputs.push_back(e->src());
    }
  }
  struct Out {
    Node* dst;
    int src_output;
    int dst_input;
  };
  std::vector<Out> outs;
  for (const Edge* e : last->out_edges()) {
    outs.push_back(Out{e->dst(), e->src_output(), e->dst_input()});
  }
  const std::string device = conv->assigned_device_name();
  const std::string name = last->name();

  for (Node* n : members_and_conv) g->RemoveNode(n);
  absl::StatusOr<Node*> fused = g->AddNode(std::move(def));
  if (!fused.ok()) {
    return absl::InternalError(
        absl::StrCat("Fusing the convolution epilogue of '", name,
                     "': ", fused.status().message()));
  }
  Node* f = *fused;
  f->set_assigned_device_name(device);
  for (size_t i = 0; i < inputs.size(); ++i) {
    g->AddEdge(inputs[i].node, inputs[i].index, f, static_cast<int>(i));
  }
  for (Node* c : control_inputs) g->AddControlEdge(c, f);
  for (const Out& o : outs) {
    if (o.src_output == Graph::kControlSlot) {
      g->AddControlEdge(f, o.dst);
    } else {
      g->AddEdge(f, o.src_output, o.dst, o.dst_input);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> FuseConvEpilogues(Graph* graph) {
  std::vector<Chain> chains;
  std::vector<Node*> needed;
  // By id rather than op_nodes(): a million-node graph with no convolution
  // should cost a scan, not a copy of its node list.
  for (int id = 0; id < graph->num_node_ids(); ++id) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || !n->IsOp()) continue;
    std::optional<Chain> chain = FindChain(n);
    if (!chain.has_value()) continue;
    needed.push_back(Producer(*chain->conv, 1).node);
    for (const Chain::Member& m : chain->members) {
      if (m.arg_input >= 0)
        needed.push_back(Producer(*m.node, m.arg_input).node);
    }
    chains.push_back(std::move(*chain));
  }
  if (chains.empty()) return 0;

  std::vector<Node*> ancestors;
  if (!CollectAncestors(needed, kMaxInferredNodes, &ancestors)) return 0;
  ShapeRefiner refiner(graph->op_registry());
  // One at a time, producers first: a node whose shape function fails is
  // left out and reads as unknown to its consumers, so only what depends
  // on it stays unfused.
  for (Node* n : ancestors) refiner.AddNode(n).IgnoreError();

  // Every shape is read before the first rewrite removes a node.
  std::vector<size_t> proven;
  for (const Chain& chain : chains) {
    proven.push_back(
        ProvenPrefix(refiner, chain, OutputChannels(refiner, chain)));
  }
  int fused = 0;
  for (size_t i = 0; i < chains.size(); ++i) {
    if (proven[i] == 0) continue;
    SF_RETURN_IF_ERROR(Rewrite(graph, chains[i], proven[i]));
    fused += static_cast<int>(proven[i]);
  }
  return fused;
}

}  // namespace stepflow
