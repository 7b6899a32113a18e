// LoopbackCluster (testonly): a master and N workers in one process, joined
// by a LoopbackTransport installed as the Env's transport, on a real Env.
//
// Tasks: the master is "/job:master/replica:0/task:0"; worker i is
// "/job:worker/replica:0/task:i" with `cpus_per_worker` CPU devices. The
// client device of every session is /job:worker/replica:0/task:0/device:
// CPU:0. NewSession() makes a DistributedSession on the master.
//
// Destruction stops serving, then frees master and workers, then the Env.
// Sessions made here must be destroyed first.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_CLUSTER_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/config.pb.h"
#include "runtime/distributed/distributed_session.h"
#include "runtime/distributed/master.h"
#include "runtime/distributed/testing/loopback_transport.h"
#include "runtime/distributed/worker.h"
#include "runtime/env/real/real_env.h"

namespace stepflow {

class LoopbackCluster {
 public:
  static constexpr char kMasterTask[] = "/job:master/replica:0/task:0";

  static absl::Status Create(int num_workers, int cpus_per_worker,
                             std::unique_ptr<LoopbackCluster>* out);
  ~LoopbackCluster();

  std::unique_ptr<DistributedSession> NewSession(
      const ConfigProto& config = ConfigProto());

  static std::string WorkerTask(int i);
  Env* env() { return env_->env(); }
  LoopbackTransport* transport() { return transport_.get(); }
  Master* master() { return master_.get(); }
  Worker* worker(int i) { return workers_[i].get(); }
  int num_workers() const { return static_cast<int>(workers_.size()); }

  // Stops serving worker i's task (calls to it become Unavailable).
  void StopWorker(int i);
  // Replaces worker i by a fresh one (a new incarnation, no sessions) on
  // the same task, as if its process restarted. Its steps are cancelled;
  // the old worker is kept until the cluster is destroyed, so calls it is
  // still handling stay valid.
  absl::Status RestartWorker(int i);

 private:
  LoopbackCluster() = default;

  std::unique_ptr<RealEnv> env_;
  std::unique_ptr<LoopbackTransport> transport_;
  std::unique_ptr<Master> master_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Worker>> retired_;  // Replaced by a restart.
  int cpus_per_worker_ = 1;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_TESTING_LOOPBACK_CLUSTER_H_
