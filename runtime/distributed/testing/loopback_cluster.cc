#include "runtime/distributed/testing/loopback_cluster.h"

#include "absl/strings/str_cat.h"
#include "runtime/env/notification.h"

namespace stepflow {

std::string LoopbackCluster::WorkerTask(int i) {
  return absl::StrCat("/job:worker/replica:0/task:", i);
}

absl::Status LoopbackCluster::Create(int num_workers, int cpus_per_worker,
                                     std::unique_ptr<LoopbackCluster>* out) {
  std::unique_ptr<LoopbackCluster> c(new LoopbackCluster());
  c->cpus_per_worker_ = cpus_per_worker;
  c->env_ = RealEnv::Create(4);
  c->transport_ = std::make_unique<LoopbackTransport>(c->env_->scheduler());
  c->env_->env()->transport = c->transport_.get();
  std::vector<std::string> tasks;
  for (int i = 0; i < num_workers; ++i) {
    std::unique_ptr<Worker> w;
    absl::Status s =
        Worker::Create(c->env(), WorkerTask(i), cpus_per_worker, &w);
    if (!s.ok()) return s;
    s = c->transport_->Serve(w->task(), w.get());
    if (!s.ok()) return s;
    tasks.push_back(w->task());
    c->workers_.push_back(std::move(w));
  }
  c->master_ = std::make_unique<Master>(c->env(), tasks);
  absl::Status s = c->transport_->Serve(kMasterTask, c->master_.get());
  if (!s.ok()) return s;
  *out = std::move(c);
  return absl::OkStatus();
}

LoopbackCluster::~LoopbackCluster() {
  transport_->StopServing(kMasterTask);
  for (auto& w : workers_) transport_->StopServing(w->task());
  // Give closures still queued (the tail of a cancelled step) a moment to
  // finish, then free master and workers while the Env still runs their
  // last callbacks, then the Env (which drains its scheduler).
  for (int round = 0; round < 5; ++round) {
    Notification n;
    env_->scheduler()->ScheduleAfter(2000000, [&n] { n.Notify(); });
    env_->scheduler()->WaitFor(&n);
  }
  master_.reset();
  workers_.clear();
  retired_.clear();
  env_.reset();
}

void LoopbackCluster::StopWorker(int i) {
  transport_->StopServing(workers_[i]->task());
}

absl::Status LoopbackCluster::RestartWorker(int i) {
  const std::string task = workers_[i]->task();
  transport_->StopServing(task);
  std::unique_ptr<Worker> fresh;
  absl::Status s = Worker::Create(env(), task, cpus_per_worker_, &fresh);
  if (!s.ok()) return s;
  retired_.push_back(std::move(workers_[i]));
  workers_[i] = std::move(fresh);
  return transport_->Serve(task, workers_[i].get());
}

std::unique_ptr<DistributedSession> LoopbackCluster::NewSession(
    const ConfigProto& config) {
  SessionOptions opts;
  opts.env = env();
  opts.config = config;
  opts.target = absl::StrCat("loopback://", kMasterTask);
  std::string master;
  MasterTaskFromTarget(opts.target, &master).IgnoreError();
  return std::make_unique<DistributedSession>(opts, master);
}

}  // namespace stepflow
