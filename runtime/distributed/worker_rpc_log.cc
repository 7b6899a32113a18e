#include "runtime/distributed/worker_rpc_log.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {

bool WorkerRpcLog::enabled() const {
  absl::MutexLock l(&mu_);
  return enabled_;
}

void WorkerRpcLog::Handle(const LoggingRequest& req, LoggingResponse* resp) {
  absl::MutexLock l(&mu_);
  if (req.enable_rpc_logging()) enabled_ = true;
  if (req.disable_rpc_logging()) enabled_ = false;
  if (req.clear()) {
    steps_.clear();
    order_.clear();
  }
  for (int64_t step_id : req.fetch_step_id()) {
    auto it = steps_.find(step_id);
    if (it == steps_.end()) continue;
    LabeledStepStats* labeled = resp->add_step();
    labeled->set_step_id(step_id);
    *labeled->mutable_step_stats() = std::move(it->second);
    steps_.erase(it);
    order_.erase(std::find(order_.begin(), order_.end(), step_id));
  }
}

void WorkerRpcLog::RecordRecvTensor(int64_t step_id,
                                    const std::string& src_device,
                                    const std::string& rendezvous_key,
                                    int64_t bytes, int64_t start_micros,
                                    int64_t end_micros) {
  absl::MutexLock l(&mu_);
  if (!enabled_) return;
  auto [it, inserted] = steps_.try_emplace(step_id);
  if (inserted) {
    order_.push_back(step_id);
    if (order_.size() > kMaxSteps) {
      steps_.erase(order_.front());
      order_.pop_front();
    }
  }
  StepStats& stats = it->second;
  DeviceStepStats* dev = nullptr;
  for (DeviceStepStats& d : *stats.mutable_dev_stats()) {
    if (d.device() == src_device) dev = &d;
  }
  if (dev == nullptr) {
    dev = stats.add_dev_stats();
    dev->set_device(src_device);
  }
  NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name("RecvTensor");
  ns->set_all_start_micros(start_micros);
  ns->set_op_end_rel_micros(end_micros - start_micros);
  ns->set_all_end_rel_micros(end_micros - start_micros);
  ns->set_timeline_label(
      absl::StrCat("RecvTensor ", rendezvous_key, " (", bytes, " bytes)"));
}

}  // namespace stepflow
