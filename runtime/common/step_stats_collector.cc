#include "runtime/common/step_stats_collector.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow {
namespace {

std::string StringAttr(const NodeDef& def, const std::string& name) {
  auto it = def.attr().find(name);
  return it == def.attr().end() ? "" : it->second.s();
}

}  // namespace

std::string TimelineLabel(const NodeDef& def) {
  std::string label = absl::StrCat(def.name(), " = ", def.op(), "(",
                                   absl::StrJoin(def.input(), ", "), ")");
  const std::string& op = def.op();
  if (op == "_Send" || op == "_Recv" || op == "_HostSend" ||
      op == "_HostRecv") {
    auto client = def.attr().find("client_terminated");
    const bool client_terminated =
        client != def.attr().end() && client->second.b();
    absl::StrAppend(&label, " [tensor=", StringAttr(def, "tensor_name"),
                    " from=", StringAttr(def, "send_device"),
                    " to=", StringAttr(def, "recv_device"),
                    client_terminated ? " client" : "", "]");
  }
  return label;
}

void StepStatsCollector::Save(const std::string& device, NodeExecStats stats) {
  absl::MutexLock l(&mu_);
  by_device_[device].push_back(std::move(stats));
}

void StepStatsCollector::Finalize(StepStats* step_stats) const {
  step_stats->Clear();
  absl::MutexLock l(&mu_);
  for (const auto& [device, nodes] : by_device_) {  // Sorted by name.
    std::vector<const NodeExecStats*> order;
    order.reserve(nodes.size());
    for (const NodeExecStats& n : nodes) order.push_back(&n);
    std::stable_sort(order.begin(), order.end(),
                     [](const NodeExecStats* a, const NodeExecStats* b) {
                       if (a->all_start_nanos() != b->all_start_nanos()) {
                         return a->all_start_nanos() < b->all_start_nanos();
                       }
                       return a->node_name() < b->node_name();
                     });
    DeviceStepStats* dev = step_stats->add_dev_stats();
    dev->set_device(device);
    for (const NodeExecStats* n : order) *dev->add_node_stats() = *n;
  }
}

size_t StepStatsCollector::NumSaved() const {
  absl::MutexLock l(&mu_);
  size_t n = 0;
  for (const auto& [device, nodes] : by_device_) n += nodes.size();
  return n;
}

}  // namespace stepflow
