#include "sim/workloads/distributed_faults.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

constexpr int64_t kMilli = 1000 * 1000;

int64_t Between(Random* r, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo +
         static_cast<int64_t>(r->Uniform(static_cast<uint64_t>(hi - lo + 1)));
}

}  // namespace

DistributedFaults::DistributedFaults(
    SimEnv* sim, SimCluster* cluster, Random* random,
    SimAllocationFaults* allocation_faults,
    const DistributedFaultOptions& options,
    std::function<void(const std::string&, const std::string&)> violation)
    : sim_(sim),
      cluster_(cluster),
      random_(random),
      allocation_faults_(allocation_faults),
      options_(options),
      violation_(std::move(violation)) {
  tasks_.push_back(SimCluster::kMasterTask);
  for (int i = 0; i < cluster_->num_workers(); ++i) {
    tasks_.push_back(SimCluster::WorkerTask(i));
  }
  crashed_.assign(cluster_->num_workers(), false);
}

void DistributedFaults::Schedule() {
  cluster_->network()->SetFaultRates(options_.drop_per_mille,
                                     options_.duplicate_per_mille);
  if (allocation_faults_ != nullptr) allocation_faults_->set_armed(true);
  heal_at_ = sim_->loop.NowNanos() + options_.chaos_nanos;
  const int faults =
      static_cast<int>(Between(random_, 0, std::max(0, options_.faults)));
  for (int i = 0; i < faults; ++i) {
    const int64_t at = Between(random_, 0, options_.chaos_nanos - 1);
    sim_->loop.ScheduleAfterLabeled(at, "fault", [this] { Apply(); });
  }
  sim_->loop.ScheduleAfterLabeled(options_.chaos_nanos, "heal",
                                  [this] { Heal(); });
}

void DistributedFaults::Apply() {
  if (healed_) return;
  std::vector<Kind> kinds;
  if (options_.crashes) kinds.push_back(kCrash);
  if (options_.partitions) {
    kinds.push_back(kPartition);
    kinds.push_back(kOneWay);
  }
  if (options_.clogs) kinds.push_back(kClog);
  if (options_.hangs) kinds.push_back(kHang);
  if (options_.master_crashes) kinds.push_back(kMasterCrash);
  if (kinds.empty()) return;
  const Kind kind = kinds[random_->Uniform(kinds.size())];
  SimNetwork* net = cluster_->network();
  ++applied_;
  switch (kind) {
    case kCrash:
      CrashWorker();
      return;
    case kMasterCrash:
      CrashMaster();
      return;
    case kHang: {
      // Held until the heal (a message's delivery time is fixed when it
      // is sent, so the clog must end exactly then).
      const int w = static_cast<int>(random_->Uniform(cluster_->num_workers()));
      sim_->loop.Trace(
          SIM_FAULT, "network",
          {{"fault", "hang"}, {"task", SimCluster::WorkerTask(w)}});
      net->Clog(SimCluster::WorkerTask(w), heal_at_);
      return;
    }
    case kClog:
      net->Clog(
          tasks_[random_->Uniform(tasks_.size())],
          sim_->loop.NowNanos() + Between(random_, 10 * kMilli, kMaxClogNanos));
      return;
    case kPartition:
    case kOneWay: {
      const std::string a = tasks_[random_->Uniform(tasks_.size())];
      std::string b = tasks_[random_->Uniform(tasks_.size())];
      if (b == a) b = SimCluster::kClientTask;
      if (kind == kPartition) {
        net->Partition(a, b);
      } else {
        net->PartitionOneWay(a, b);
      }
      return;
    }
  }
}

void DistributedFaults::CrashWorker() {
  const int w = static_cast<int>(random_->Uniform(cluster_->num_workers()));
  if (crashed_[w]) return;
  crashed_[w] = true;
  cluster_->CrashWorker(w);
  const int64_t down = Between(random_, 50 * kMilli, 1500 * kMilli);
  sim_->loop.ScheduleAfterLabeled(down, "restart", [this, w] { Restart(w); });
}

void DistributedFaults::CrashMaster() {
  if (master_crashed_) return;
  master_crashed_ = true;
  sim_->loop.Trace(SIM_FAULT, "network",
                   {{"fault", "crash"}, {"task", SimCluster::kMasterTask}});
  cluster_->CrashMaster();
  const int64_t down = Between(random_, 50 * kMilli, 1500 * kMilli);
  sim_->loop.ScheduleAfterLabeled(down, "restart", [this] { Restart(-1); });
}

void DistributedFaults::Restart(int worker) {
  if (worker < 0 ? !master_crashed_ : !crashed_[worker]) return;
  if (worker < 0) {
    master_crashed_ = false;
  } else {
    crashed_[worker] = false;
  }
  const std::string task =
      worker < 0 ? SimCluster::kMasterTask : SimCluster::WorkerTask(worker);
  sim_->loop.Trace(SIM_FAULT, "network",
                   {{"fault", "restart"}, {"task", task}});
  absl::Status s =
      worker < 0 ? cluster_->RestartMaster() : cluster_->RestartWorker(worker);
  if (!s.ok()) {
    violation_("liveness",
               absl::StrCat("restarting ", task, " failed: ", s.ToString()));
  }
}

void DistributedFaults::Heal() {
  healed_ = true;
  SimNetwork* net = cluster_->network();
  net->Heal();
  net->SetFaultRates(0, 0);
  if (allocation_faults_ != nullptr) allocation_faults_->set_armed(false);
  Restart(-1);
  for (int w = 0; w < cluster_->num_workers(); ++w) Restart(w);
}

}  // namespace stepflow
