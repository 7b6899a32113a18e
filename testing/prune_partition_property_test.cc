// Property tests for pruning and partitioning over random placed DAGs:
//  (a) the pruned node set equals an independent reference (minimal and
//      sufficient), also for graphs with function calls lowered first
//      (each lowered body counted as its call site);
//  (b) every cross-partition edge group (source, output, destination) is
//      served by exactly one Send/Recv pair with matching tensor_name,
//      devices and incarnation, and no Send or Recv is unpaired;
//  (c) the partitions together hold every pruned node exactly once, and
//      each partition imports as a graph of its own.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/device_attributes.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/lower_functional_ops.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/partition.h"
#include "runtime/graph/subgraph.h"
#include "testing/graph_generators.h"
#include "testing/reference_call.h"
#include "testing/reference_prune.h"

namespace stepflow {
namespace {

using graph_testing::ExecutionRequest;
using graph_testing::GenExecutionRequest;
using graph_testing::GenRandomDag;
using graph_testing::LocalCpuDevice;
using graph_testing::RandomDag;

DeviceAttributes ClientDevice() {
  DeviceAttributes d;
  d.set_name(LocalCpuDevice(0));
  d.set_device_type("CPU");
  d.set_incarnation(42);
  return d;
}

uint64_t IncarnationOf(const std::string& device) {
  return 1000 + device.size() * 7 + static_cast<uint64_t>(device.back());
}

// Imports the DAG (assigned device = NodeDef.device) and rewrites it for
// `request`.
void BuildPrunedGraph(const RandomDag& dag, const ExecutionRequest& request,
                      bool use_function_convention, Graph* g) {
  GraphConstructorOptions opts;
  opts.expect_device_spec = true;
  absl::Status s = ConvertGraphDefToGraph(opts, dag.graph, g);
  RC_ASSERT(s.ok());
  s = subgraph::RewriteGraphForExecution(g, request.feeds, request.fetches,
                                         request.targets, ClientDevice(),
                                         use_function_convention, nullptr);
  if (!s.ok()) RC_FAIL(std::string(s.message()));
}

std::string InputName(const std::string& node, int slot) {
  if (slot == kControlSlot) return "^" + node;
  return slot == 0 ? node : absl::StrCat(node, ":", slot);
}

std::string StringAttr(const NodeDef& n, const char* name) {
  std::string v;
  RC_ASSERT(GetNodeAttr(n, name, &v).ok());
  return v;
}

RC_GTEST_PROP(PrunePartitionProperty, PrunedNodesEqualReference, ()) {
  const RandomDag dag = *GenRandomDag();
  const ExecutionRequest request = *GenExecutionRequest(dag.graph);
  const bool use_function_convention = *rc::gen::arbitrary<bool>();
  Graph g(OpRegistry::Global());
  BuildPrunedGraph(dag, request, use_function_convention, &g);

  std::set<std::string> actual;
  for (const Node* n : g.op_nodes()) actual.insert(n->name());
  const std::set<std::string> expected =
      graph_testing::ReferencePrunedNodeNames(dag.graph, request.feeds,
                                              request.fetches, request.targets,
                                              use_function_convention);
  RC_ASSERT(actual == expected);
  RC_CLASSIFY(!request.feeds.empty(), "with feeds");
  RC_CLASSIFY(actual.size() < static_cast<size_t>(dag.graph.node_size()),
              "something pruned");

  // Sufficient and well-formed: every input slot is connected and every
  // node hangs between SOURCE and SINK.
  for (const Node* n : g.op_nodes()) {
    int data_in = 0;
    for (const Edge* e : n->in_edges()) data_in += e->IsControlEdge() ? 0 : 1;
    RC_ASSERT(data_in == n->num_inputs());
    RC_ASSERT(!n->in_edges().empty());
    RC_ASSERT(!n->out_edges().empty());
  }
}

// (a') With function calls: the graph lowered as sessions lower it
// (runtime/function/lower_functional_ops.h), then pruned, keeps exactly the
// reference's nodes of the call-level graph once every lowered node
// "c/<...>" of a call site c counts as c: a call is kept whole or not at
// all, with all of its inputs.
RC_GTEST_PROP(PrunePartitionProperty, LoweredCallsPruneLikeCallSites, ()) {
  graph_testing::DagOptions options;
  options.function_call_weight = 4;
  const RandomDag dag = *GenRandomDag(options);
  const ExecutionRequest request = *GenExecutionRequest(dag.graph);
  GraphDef lowered;
  absl::Status s =
      LowerFunctionalOps(dag.graph, OpRegistry::Global(), &lowered);
  if (!s.ok()) RC_FAIL(std::string(s.message()));
  RandomDag lowered_dag = dag;
  lowered_dag.graph = lowered;
  Graph g(OpRegistry::Global());
  BuildPrunedGraph(lowered_dag, request, /*use_function_convention=*/true, &g);

  std::set<std::string> call_sites;
  for (const NodeDef& n : dag.graph.node()) {
    if (graph_testing::IsReferenceCallSite(n, dag.graph.library())) {
      call_sites.insert(n.name());
    }
  }
  std::set<std::string> actual;
  for (const Node* n : g.op_nodes()) {
    const std::string outer = n->name().substr(0, n->name().find('/'));
    actual.insert(call_sites.count(outer) > 0 ? outer : n->name());
  }
  const std::set<std::string> expected =
      graph_testing::ReferencePrunedNodeNames(dag.graph, request.feeds,
                                              request.fetches, request.targets,
                                              /*use_function_convention=*/true);
  RC_ASSERT(actual == expected);
  RC_CLASSIFY(!call_sites.empty(), "with calls");
}

// One expected Send/Recv pair.
struct TransferGroup {
  std::string src;
  int slot = 0;
  std::string src_device;
  std::string dst_loc;
  std::set<std::string> tensor_names;  // acceptable: any member edge's
  std::vector<std::pair<std::string, int>> consumers;  // (dst, dst_input)
};

RC_GTEST_PROP(PrunePartitionProperty, CrossEdgesBecomeExactlyOnePairEach, ()) {
  const RandomDag dag = *GenRandomDag();
  const ExecutionRequest request = *GenExecutionRequest(dag.graph);
  const bool use_function_convention = *rc::gen::arbitrary<bool>();
  Graph g(OpRegistry::Global());
  BuildPrunedGraph(dag, request, use_function_convention, &g);

  PartitionOptions opts;
  opts.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
  opts.new_name = [&g](const std::string& prefix) { return g.NewName(prefix); };
  opts.get_incarnation = IncarnationOf;
  std::map<std::string, GraphDef> parts;
  const absl::Status s = Partition(opts, &g, &parts);
  if (!s.ok()) RC_FAIL(std::string(s.message()));

  // Expected transfer groups from the pruned graph.
  std::map<std::tuple<std::string, int, std::string>, TransferGroup> groups;
  for (const Edge* e : g.edges()) {
    const Node* src = e->src();
    const Node* dst = e->dst();
    if (!src->IsOp() || !dst->IsOp()) continue;
    if (src->assigned_device_name() == dst->assigned_device_name()) continue;
    TransferGroup& group =
        groups[{src->name(), e->src_output(), dst->assigned_device_name()}];
    group.src = src->name();
    group.slot = e->src_output();
    group.src_device = src->assigned_device_name();
    group.dst_loc = dst->assigned_device_name();
    group.tensor_names.insert(absl::StrCat("edge_", e->id(), "_", src->name()));
    group.consumers.push_back({dst->name(), e->dst_input()});
  }

  // Index the partitions.
  struct Located {
    std::string loc;
    const NodeDef* def = nullptr;
  };
  std::map<std::string, Located> by_name;
  std::map<std::string, Located> send_by_tensor, recv_by_tensor;
  for (const auto& [loc, gdef] : parts) {
    for (const NodeDef& n : gdef.node()) {
      RC_ASSERT(by_name.count(n.name()) == 0u);  // names unique overall
      by_name[n.name()] = {loc, &n};
      RC_ASSERT(n.device() == loc);
      if (n.op() != "_Send" && n.op() != "_Recv") continue;
      bool client_terminated = false;
      RC_ASSERT(GetNodeAttr(n, "client_terminated", &client_terminated).ok());
      if (client_terminated) {
        // A feed/fetch of the send/recv convention, not a transfer.
        RC_ASSERT(n.name().rfind("_send_", 0) == 0 ||
                  n.name().rfind("_recv_", 0) == 0);
        continue;
      }
      auto& index = n.op() == "_Send" ? send_by_tensor : recv_by_tensor;
      const std::string tensor_name = StringAttr(n, "tensor_name");
      RC_ASSERT(index.count(tensor_name) == 0u);
      index[tensor_name] = {loc, &n};
    }
  }

  int num_control = 0;
  for (const auto& [key, group] : groups) {
    num_control += group.slot == kControlSlot ? 1 : 0;
  }
  RC_CLASSIFY(groups.empty(), "no cross-partition edge");
  RC_CLASSIFY(num_control > 0, "cross-partition control edge");
  RC_CLASSIFY(g.num_op_nodes() > 20, "more than 20 pruned nodes");

  // (b) No unpaired Send or Recv; one pair per group.
  RC_ASSERT(send_by_tensor.size() == groups.size());
  RC_ASSERT(recv_by_tensor.size() == groups.size());
  for (const auto& [tensor_name, send] : send_by_tensor) {
    auto it = recv_by_tensor.find(tensor_name);
    RC_ASSERT(it != recv_by_tensor.end());
    const NodeDef& recv = *it->second.def;
    for (const char* attr : {"send_device", "recv_device"}) {
      RC_ASSERT(StringAttr(*send.def, attr) == StringAttr(recv, attr));
    }
    RC_ASSERT(StringAttr(*send.def, "send_device") == send.loc);
    RC_ASSERT(StringAttr(recv, "recv_device") == it->second.loc);
    int64_t send_inc = 0, recv_inc = 0;
    bool send_ct = true, recv_ct = true;
    RC_ASSERT(
        GetNodeAttr(*send.def, "send_device_incarnation", &send_inc).ok());
    RC_ASSERT(GetNodeAttr(recv, "send_device_incarnation", &recv_inc).ok());
    RC_ASSERT(GetNodeAttr(*send.def, "client_terminated", &send_ct).ok());
    RC_ASSERT(GetNodeAttr(recv, "client_terminated", &recv_ct).ok());
    RC_ASSERT(send_inc == recv_inc);
    RC_ASSERT(static_cast<uint64_t>(send_inc) == IncarnationOf(send.loc));
    RC_ASSERT(!send_ct && !recv_ct);
  }

  auto lookup = [&by_name](const std::string& name) {
    auto it = by_name.find(name);
    return it == by_name.end() ? Located{} : it->second;
  };
  int control_groups = 0;
  for (const auto& [key, group] : groups) {
    std::vector<std::string> matching;
    for (const std::string& t : group.tensor_names) {
      if (send_by_tensor.count(t)) matching.push_back(t);
    }
    RC_ASSERT(matching.size() == 1u);
    const Located& send = send_by_tensor[matching[0]];
    const Located& recv = recv_by_tensor[matching[0]];
    RC_ASSERT(send.loc == group.src_device);
    RC_ASSERT(recv.loc == group.dst_loc);
    RC_ASSERT(send.def->input_size() == 1);
    std::string received = recv.def->name();
    if (group.slot == kControlSlot) {
      ++control_groups;
      // Send <- dummy Const <- ^src.
      const Located dummy = lookup(send.def->input(0));
      RC_ASSERT(dummy.def != nullptr);
      RC_ASSERT(dummy.def->op() == "Const");
      RC_ASSERT(dummy.def->input_size() == 1);
      RC_ASSERT(dummy.def->input(0) == "^" + group.src);
      // The consumer reads ^Identity(recv).
      std::string identity;
      for (const NodeDef& n : parts[group.dst_loc].node()) {
        if (n.op() == "Identity" && n.input_size() == 1 &&
            n.input(0) == received) {
          RC_ASSERT(identity.empty());
          identity = n.name();
        }
      }
      RC_ASSERT(!identity.empty());
      received = identity;
    } else {
      RC_ASSERT(send.def->input(0) == InputName(group.src, group.slot));
    }
    for (const auto& [consumer, dst_input] : group.consumers) {
      const Located c = lookup(consumer);
      RC_ASSERT(c.def != nullptr);
      RC_ASSERT(c.loc == group.dst_loc);
      if (dst_input == kControlSlot) {
        const std::string want = "^" + received;
        bool found = false;
        for (const std::string& in : c.def->input()) found |= in == want;
        RC_ASSERT(found);
      } else {
        RC_ASSERT(dst_input < c.def->input_size());
        RC_ASSERT(c.def->input(dst_input) == received);
      }
    }
  }

  // (c) Every pruned node exactly once, on its device, with all data inputs;
  // everything else is transfer scaffolding.
  int pruned = 0;
  for (const Node* n : g.op_nodes()) {
    ++pruned;
    auto it = by_name.find(n->name());
    RC_ASSERT(it != by_name.end());
    RC_ASSERT(it->second.loc == n->assigned_device_name());
    RC_ASSERT(it->second.def->op() == n->type_string());
    int data_inputs = 0;
    for (const std::string& in : it->second.def->input()) {
      data_inputs += in.rfind("^", 0) == 0 ? 0 : 1;
    }
    RC_ASSERT(data_inputs == n->num_inputs());
  }
  const int scaffolding = 2 * static_cast<int>(groups.size()) +
                          2 * control_groups;  // + dummy Const + Identity
  RC_ASSERT(static_cast<int>(by_name.size()) == pruned + scaffolding);

  // Round trip: each partition is a valid graph on its own.
  for (const auto& [loc, gdef] : parts) {
    Graph pg(OpRegistry::Global());
    GraphConstructorOptions import_opts;
    import_opts.allow_internal_ops = true;
    const absl::Status st = ConvertGraphDefToGraph(import_opts, gdef, &pg);
    if (!st.ok()) RC_FAIL(absl::StrCat(loc, ": ", st.message()));
  }
}

}  // namespace
}  // namespace stepflow
