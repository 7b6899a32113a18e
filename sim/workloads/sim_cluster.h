// SimCluster: a distributed stepflow cluster inside one SimEnv — the real
// Master and Workers (runtime/distributed/) joined by a SimNetwork
// (sim/sim_transport.h), so every RPC is serialised with the production
// protos and delivered through the event loop with the network's faults.
//
// Tasks: the master "/job:master/replica:0/task:0", workers
// "/job:worker/replica:0/task:i" (i < num_workers, with cpus[i] CPU
// devices) and the client "/job:client/replica:0/task:0". Each task has
// its own Env: the loop as scheduler, its own clock (the loop's time plus
// a fixed skew: clock skew), its own random stream ("runtime/<task>", so a
// restart draws a new incarnation and tasks never shift each other's
// draws) and its own network endpoint as transport.
//
// Crashes: CrashWorker(i) cuts the worker off the network at once
// (SimNetwork::Crash), aborts its steps and keeps the dead Worker as a
// zombie until the cluster is destroyed, so work it still had queued
// unwinds safely and invisibly. RestartWorker(i) starts a fresh Worker on
// the same task (new incarnation, no sessions).
//
// Checks: every worker is served through a probe that reports every answer
// to SimClusterOptions::on_worker_answer and records, per
// incarnation, the steps CleanupGraph has ended; a RecvTensor answered OK
// for such a step, or for a key naming another incarnation of the serving
// worker's devices, is recorded in stale_recvs() (an invariant violation).
//
// Ownership: the SimEnv is borrowed and must outlive the cluster; destroy
// sessions and run the loop idle before destroying the cluster.
// Thread-safety: none — the simulator's one thread.
#ifndef STEPFLOW_SIM_SIM_CLUSTER_H_
#define STEPFLOW_SIM_SIM_CLUSTER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/config.pb.h"
#include "runtime/distributed/distributed_session.h"
#include "runtime/distributed/master.h"
#include "runtime/distributed/worker.h"
#include "runtime/env/env.h"
#include "sim/env/sim_env.h"
#include "sim/env/sim_transport.h"

namespace stepflow {

struct SimClusterOptions {
  std::vector<int> cpus = {1, 1};  // One entry per worker (1..8 workers).
  // The workers' task names, one per entry of cpus (empty: WorkerTask(i)),
  // e.g. a recorded cluster's "/job:ps/replica:0/task:0".
  std::vector<std::string> worker_tasks;
  // Clock skew of the master and of each worker (virtual ns; missing: 0).
  int64_t master_skew_nanos = 0;
  std::vector<int64_t> worker_skew_nanos;
  SimNetworkOptions network;
  // Called with (worker task, method, status) for every call a worker
  // answers, once the answer is on its way (optional; a replay counts
  // them, and may crash the worker from inside the call).
  std::function<void(const std::string&, const std::string&,
                     const absl::Status&)>
      on_worker_answer;
  Master::Options master;
  Worker::Options worker;  // Every worker's (leases).
};

class SimCluster {
 public:
  static constexpr char kMasterTask[] = "/job:master/replica:0/task:0";
  static constexpr char kClientTask[] = "/job:client/replica:0/task:0";

  // InvalidArgument for no workers or a worker without CPUs.
  static absl::Status Create(SimEnv* sim, const SimClusterOptions& options,
                             std::unique_ptr<SimCluster>* out);
  ~SimCluster();

  static std::string WorkerTask(int i);
  int num_workers() const { return static_cast<int>(workers_.size()); }
  // The live worker i, or null while it is crashed.
  Worker* worker(int i) const { return workers_[i].live.get(); }
  // The live master, or null while it is crashed.
  Master* master() const { return master_.get(); }
  SimNetwork* network() const { return network_.get(); }
  // The client task's Env (loop clock, "runtime/client" stream, client
  // endpoint): sessions and direct master calls use it.
  Env* client_env() const { return client_.env.get(); }

  // A DistributedSession from the client task to the master.
  std::unique_ptr<DistributedSession> NewSession(const ConfigProto& config);

  void CrashWorker(int i);
  absl::Status RestartWorker(int i);
  void CrashMaster();
  absl::Status RestartMaster();
  // Worker and master restarts so far.
  int restarts() const { return restarts_; }

  // Stale or aborted RecvTensor answers seen so far (descriptions).
  const std::vector<std::string>& stale_recvs() const { return stale_recvs_; }

 private:
  class SkewedClock;
  class WorkerProbe;
  struct TaskEnv {
    std::shared_ptr<SkewedClock>
        clock;  // shared_ptr: the type is private to the .cc
    std::unique_ptr<Env> env;
  };
  struct WorkerSlot {
    std::string task;
    int cpus = 1;
    int64_t skew = 0;
    TaskEnv env;
    std::unique_ptr<Worker> live;
    std::shared_ptr<WorkerProbe> probe;
  };

  explicit SimCluster(SimEnv* sim) : sim_(sim) {}
  TaskEnv NewTaskEnv(const std::string& task, int64_t skew);
  absl::Status StartWorker(WorkerSlot* slot);
  absl::Status StartMaster();

  SimEnv* const sim_;
  Worker::Options worker_options_;
  Master::Options master_options_;
  std::function<void(const std::string&, const std::string&,
                     const absl::Status&)>
      on_worker_answer_;
  int64_t master_skew_ = 0;
  std::vector<std::string> worker_tasks_;
  std::unique_ptr<SimNetwork> network_;
  TaskEnv master_env_;
  TaskEnv client_;
  std::unique_ptr<Master> master_;
  std::vector<WorkerSlot> workers_;
  // Crashed workers, their probes and Envs: kept until destruction.
  std::vector<std::unique_ptr<Worker>> zombies_;
  std::vector<std::unique_ptr<Master>> zombie_masters_;
  std::vector<std::shared_ptr<WorkerProbe>> dead_probes_;
  std::vector<TaskEnv> dead_envs_;
  std::vector<std::string> stale_recvs_;
  int restarts_ = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_CLUSTER_H_
