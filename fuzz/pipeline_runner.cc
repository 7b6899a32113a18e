#include "fuzz/pipeline_runner.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/common/placer.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/partition.h"
#include "runtime/graph/subgraph.h"

namespace stepflow::fuzzing {
namespace {

bool CodeIn(const absl::Status& s, std::initializer_list<absl::StatusCode> ok) {
  for (absl::StatusCode c : ok) {
    if (s.code() == c) return true;
  }
  return false;
}

std::string Unexpected(absl::string_view stage, const absl::Status& s) {
  return absl::StrCat(stage,
                      " returned an undocumented status code: ", s.ToString());
}

// Assigned device of every op node, by name.
std::map<std::string, std::string> AssignedDevices(const Graph& g) {
  std::map<std::string, std::string> out;
  for (const Node* n : g.op_nodes()) out[n->name()] = n->assigned_device_name();
  return out;
}

struct SendRecvEnd {
  std::string partition;
  std::string node;
  std::string send_device;
  std::string recv_device;
  int64_t incarnation = 0;
  DataType dtype = DT_INVALID;
};

}  // namespace

std::vector<DeviceAttributes> LocalDevices(int num_devices) {
  std::vector<DeviceAttributes> devices;
  for (int i = 0; i < num_devices; ++i) {
    DeviceAttributes d;
    d.set_name(LocalCpuName(i));
    d.set_device_type("CPU");
    // Distinct, and with the top bit set for some, to exercise the int64
    // attr encoding of send_device_incarnation.
    d.set_incarnation(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1));
    devices.push_back(d);
  }
  return devices;
}

std::string CheckPartitionInvariants(
    const Graph& g, const std::vector<DeviceAttributes>& devices,
    const std::map<std::string, GraphDef>& partitions) {
  std::map<std::string, uint64_t> incarnations;
  for (const DeviceAttributes& d : devices) {
    incarnations[d.name()] = d.incarnation();
  }
  const std::string& client = devices.front().name();

  std::map<std::string, std::string> partition_of;  // node name -> key
  std::map<std::string, std::vector<SendRecvEnd>> sends, recvs;
  for (const auto& [key, gdef] : partitions) {
    if (incarnations.count(key) == 0) {
      return absl::StrCat("partition key '", key, "' is not a device");
    }
    Graph pg;
    GraphConstructorOptions opts;
    opts.allow_internal_ops = true;
    opts.expect_device_spec = true;
    absl::Status s = ConvertGraphDefToGraph(opts, gdef, &pg);
    if (!s.ok()) {
      return absl::StrCat("partition ", key,
                          " does not re-import: ", s.ToString());
    }
    for (const NodeDef& n : gdef.node()) {
      if (n.device() != key) {
        return absl::StrCat("node ", n.name(), " in partition ", key,
                            " has device '", n.device(), "'");
      }
      if (!partition_of.emplace(n.name(), key).second) {
        return absl::StrCat("node name ", n.name(), " is in partitions ",
                            partition_of[n.name()], " and ", key);
      }
      const bool is_send = n.op() == "_Send" || n.op() == "_HostSend";
      const bool is_recv = n.op() == "_Recv" || n.op() == "_HostRecv";
      if (!is_send && !is_recv) continue;
      bool client_terminated = false;
      SendRecvEnd end;
      end.partition = key;
      end.node = n.name();
      std::string tensor_name;
      if (!GetNodeAttr(n, "client_terminated", &client_terminated).ok() ||
          !GetNodeAttr(n, "tensor_name", &tensor_name).ok() ||
          !GetNodeAttr(n, "send_device", &end.send_device).ok() ||
          !GetNodeAttr(n, "recv_device", &end.recv_device).ok() ||
          !GetNodeAttr(n, "send_device_incarnation", &end.incarnation).ok() ||
          !GetNodeAttr(n, is_send ? "T" : "tensor_type", &end.dtype).ok()) {
        return absl::StrCat(n.op(), " ", n.name(), " in partition ", key,
                            " lacks a transfer attr");
      }
      if (client_terminated) {
        if (key != client) {
          return absl::StrCat("client-terminated ", n.op(), " ", n.name(),
                              " is in partition ", key, ", not the client's");
        }
        continue;
      }
      (is_send ? sends : recvs)[tensor_name].push_back(end);
    }
  }

  for (const Node* n : g.op_nodes()) {
    auto it = partition_of.find(n->name());
    if (it == partition_of.end()) {
      return absl::StrCat("node ", n->name(), " is in no partition");
    }
    if (it->second != n->assigned_device_name()) {
      return absl::StrCat("node ", n->name(), " assigned to ",
                          n->assigned_device_name(), " is in partition ",
                          it->second);
    }
  }

  std::set<std::string> names;
  for (const auto& [name, v] : sends) names.insert(name);
  for (const auto& [name, v] : recvs) names.insert(name);
  for (const std::string& name : names) {
    const std::vector<SendRecvEnd>& s = sends[name];
    const std::vector<SendRecvEnd>& r = recvs[name];
    if (s.size() != 1 || r.size() != 1) {
      return absl::StrCat("tensor_name ", name, " has ", s.size(),
                          " _Send and ", r.size(), " _Recv nodes");
    }
    const SendRecvEnd& send = s[0];
    const SendRecvEnd& recv = r[0];
    const std::string pair =
        absl::StrCat("pair ", send.node, " -> ", recv.node, " (", name, ")");
    if (send.partition == recv.partition) {
      return absl::StrCat(pair, " stays inside partition ", send.partition);
    }
    if (send.send_device != send.partition ||
        recv.recv_device != recv.partition) {
      return absl::StrCat(pair, " is not in its devices' partitions");
    }
    if (send.send_device != recv.send_device ||
        send.recv_device != recv.recv_device) {
      return absl::StrCat(pair, " disagrees on its devices");
    }
    if (send.incarnation != recv.incarnation ||
        static_cast<uint64_t>(send.incarnation) !=
            incarnations[send.send_device]) {
      return absl::StrCat(pair, " has the wrong send_device_incarnation");
    }
    if (send.dtype != recv.dtype) {
      return absl::StrCat(pair, " disagrees on its dtype");
    }
  }
  return "";
}

PipelineResult RunPipeline(const PipelineSpec& spec) {
  using absl::StatusCode;
  PipelineResult r;
  const std::vector<DeviceAttributes> devices = LocalDevices(spec.num_devices);
  const GraphDef gdef = BuildGraphDef(spec);

  Graph g;
  GraphConstructorOptions gopts;
  r.status = ConvertGraphDefToGraph(gopts, gdef, &g);
  if (!r.status.ok()) {
    r.stage = PipelineStage::kImport;
    if (!CodeIn(r.status,
                {StatusCode::kInvalidArgument, StatusCode::kNotFound})) {
      r.violation = Unexpected("ConvertGraphDefToGraph", r.status);
    } else if (g.num_op_nodes() != 0) {
      r.violation = "a failed import left op nodes in the graph";
    }
    return r;
  }

  std::vector<std::string> feeds, fetches, targets;
  for (const EndpointSpec& e : spec.feeds)
    feeds.push_back(EndpointName(spec, e));
  for (const EndpointSpec& e : spec.fetches) {
    fetches.push_back(EndpointName(spec, e));
  }
  for (int t : spec.targets) targets.push_back(SpecNodeName(spec, t));
  GraphDef before;
  g.ToGraphDef(&before);
  r.status = subgraph::RewriteGraphForExecution(
      &g, feeds, fetches, targets, devices.front(),
      spec.use_function_convention, /*out_metadata=*/nullptr);
  if (!r.status.ok()) {
    r.stage = PipelineStage::kRewrite;
    GraphDef after;
    g.ToGraphDef(&after);
    if (!CodeIn(r.status,
                {StatusCode::kInvalidArgument, StatusCode::kNotFound})) {
      r.violation = Unexpected("RewriteGraphForExecution", r.status);
    } else if (!google::protobuf::util::MessageDifferencer::Equals(before,
                                                                   after)) {
      r.violation = "a failed RewriteGraphForExecution changed the graph";
    }
    return r;
  }

  // Pre-assigned devices (as a session pins stateful nodes where they
  // already live), possibly naming a device that does not exist.
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const int assign = spec.nodes[i].assign;
    if (assign == 0) continue;
    Node* n = g.FindNodeByName(SpecNodeName(spec, static_cast<int>(i)));
    if (n == nullptr) continue;  // Pruned.
    n->set_assigned_device_name(LocalCpuName(assign - 1));
  }
  const std::map<std::string, std::string> assigned_before = AssignedDevices(g);
  PlacerOptions popts;
  popts.default_device = &devices.front();
  popts.allow_soft_placement = spec.allow_soft_placement;
  r.status = PlaceGraph(popts, devices, &g);
  if (!r.status.ok()) {
    r.stage = PipelineStage::kPlace;
    if (!CodeIn(r.status, {StatusCode::kInvalidArgument})) {
      r.violation = Unexpected("PlaceGraph", r.status);
    } else if (AssignedDevices(g) != assigned_before) {
      r.violation = "a failed PlaceGraph assigned devices";
    }
    return r;
  }
  for (const Node* n : g.op_nodes()) {
    bool known = false;
    for (const DeviceAttributes& d : devices) {
      known = known || d.name() == n->assigned_device_name();
    }
    if (!known) {
      r.stage = PipelineStage::kPlace;
      r.violation =
          absl::StrCat("PlaceGraph put ", n->name(), " on '",
                       n->assigned_device_name(), "', which is not a device");
      return r;
    }
  }

  PartitionOptions part;
  part.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
  part.new_name = [&g](const std::string& prefix) { return g.NewName(prefix); };
  part.get_incarnation = [&devices](const std::string& name) -> uint64_t {
    for (const DeviceAttributes& d : devices) {
      if (d.name() == name) return d.incarnation();
    }
    return 0;
  };
  r.status = Partition(part, &g, &r.partitions);
  if (!r.status.ok()) {
    r.stage = PipelineStage::kPartition;
    if (!CodeIn(r.status,
                {StatusCode::kInvalidArgument, StatusCode::kUnimplemented})) {
      r.violation = Unexpected("Partition", r.status);
    }
    return r;
  }
  r.stage = PipelineStage::kDone;
  r.violation = CheckPartitionInvariants(g, devices, r.partitions);
  return r;
}

}  // namespace stepflow::fuzzing
