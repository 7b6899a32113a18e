// DistributedFaults: the fault schedule of the distributed workload
// (sim/workloads/distributed_workload.h) — what goes wrong in the chaos
// phase and how the cluster is healed.
//
// Schedule() arms the network's broken-connection and duplicate rates and
// the injected allocation failures, and plans `faults` events at drawn
// times in [0, chaos); each event is, among the enabled kinds:
//   crash        a worker dies (SimCluster::CrashWorker), restarted after a
//                drawn delay or at the heal;
//   partition    two tasks cut both ways, or one way;
//   clog         a task's messages held for up to kMaxClogNanos;
//   hang         a worker stops answering (its messages held) until the
//                heal: a stopped process whose connections stay open, which
//                only the master's health checks can find;
//   master crash the master dies and restarts after a drawn delay (or at
//                the heal) with no sessions; its old worker sessions must go
//                by the workers' leases.
// At `chaos` Heal() lifts partitions, clogs and hangs, disarms every
// injected fault and restarts every crashed task.
//
// Every choice draws from the workload's Random, so a seed fixes the
// schedule; every fault is traced (SIM_FAULT).
//
// Ownership: everything is borrowed and must outlive this object.
// Thread-safety: none — the simulator's one thread.
#ifndef STEPFLOW_SIM_WORKLOADS_DISTRIBUTED_FAULTS_H_
#define STEPFLOW_SIM_WORKLOADS_DISTRIBUTED_FAULTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/env/random.h"
#include "sim/env/sim_allocation_faults.h"
#include "sim/env/sim_env.h"
#include "sim/workloads/sim_cluster.h"

namespace stepflow {

struct DistributedFaultOptions {
  int faults = 4;  // Events in the chaos window (0..faults, drawn).
  bool crashes = true;
  bool partitions = true;
  bool clogs = true;
  bool hangs = true;
  bool master_crashes = true;
  int drop_per_mille = 15;
  int duplicate_per_mille = 15;
  int64_t chaos_nanos = int64_t{3} * 1000 * 1000 * 1000;
};

class DistributedFaults {
 public:
  static constexpr int64_t kMaxClogNanos = 500 * 1000 * 1000;

  // `allocation_faults` may be null (none injected). `violation(invariant,
  // detail)` reports a task that could not be restarted.
  DistributedFaults(
      SimEnv* sim, SimCluster* cluster, Random* random,
      SimAllocationFaults* allocation_faults,
      const DistributedFaultOptions& options,
      std::function<void(const std::string&, const std::string&)> violation);

  void Schedule();
  bool healed() const { return healed_; }
  int applied() const { return applied_; }

 private:
  enum Kind { kCrash, kPartition, kOneWay, kClog, kHang, kMasterCrash };

  void Apply();
  void CrashWorker();
  void CrashMaster();
  void Restart(int worker);  // -1: the master.
  void Heal();

  SimEnv* const sim_;
  SimCluster* const cluster_;
  Random* const random_;
  SimAllocationFaults* const allocation_faults_;
  const DistributedFaultOptions options_;
  const std::function<void(const std::string&, const std::string&)> violation_;
  std::vector<std::string> tasks_;  // Master and workers (fault targets).
  std::vector<bool> crashed_;       // Per worker.
  bool master_crashed_ = false;
  int64_t heal_at_ = 0;  // Virtual time of the heal.
  bool healed_ = false;
  int applied_ = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_WORKLOADS_DISTRIBUTED_FAULTS_H_
