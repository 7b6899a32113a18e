#include "sim/workloads/sim_cluster.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/env/clock.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {

class SimCluster::SkewedClock : public Clock {
 public:
  SkewedClock(const Clock* base, int64_t skew) : base_(base), skew_(skew) {}
  int64_t NowNanos() const override { return base_->NowNanos() + skew_; }

 private:
  const Clock* const base_;
  const int64_t skew_;
};

// Serves one worker incarnation and watches what it answers (see header).
class SimCluster::WorkerProbe : public RpcHandler {
 public:
  using AnswerHook = std::function<void(const std::string&, const std::string&,
                                        const absl::Status&)>;
  WorkerProbe(Worker* worker, std::vector<std::string>* stale,
              const AnswerHook* on_answer)
      : worker_(worker), stale_(stale), on_answer_(on_answer) {}

  // The worker crashed: its late answers reach nobody and are not reported.
  void MarkCrashed() { crashed_ = true; }

  void Handle(absl::string_view method,
              const google::protobuf::Message& request,
              google::protobuf::Message* response, DoneCallback done) override {
    if (*on_answer_) {
      done = [this, method = std::string(method),
              done = std::move(done)](const absl::Status& s) {
        const bool report = !crashed_;
        done(s);  // The answer is on its way before the hook hears of it.
        if (report) (*on_answer_)(worker_->task(), method, s);
      };
    }
    if (method == "WorkerService/CleanupGraph") {
      const int64_t step =
          static_cast<const CleanupGraphRequest&>(request).step_id();
      worker_->Handle(method, request, response,
                      [this, step, done](const absl::Status& s) {
                        if (s.ok()) cleaned_.insert(step);
                        done(s);
                      });
      return;
    }
    if (method == "WorkerService/RecvTensor") {
      const auto& req = static_cast<const RecvTensorRequest&>(request);
      const int64_t step = req.step_id();
      const std::string key = req.rendezvous_key();
      worker_->Handle(method, request, response,
                      [this, step, key, done](const absl::Status& s) {
                        if (s.ok()) Check(step, key);
                        done(s);
                      });
      return;
    }
    worker_->Handle(method, request, response, std::move(done));
  }

 private:
  void Check(int64_t step, const std::string& key) {
    if (cleaned_.count(step) > 0) {
      stale_->push_back(absl::StrCat(worker_->task(), " served ", key,
                                     " for step ", step,
                                     " after CleanupGraph ended it"));
    }
    Rendezvous::ParsedKey parsed;
    if (Rendezvous::ParseKey(key, &parsed).ok() &&
        parsed.src_incarnation != worker_->incarnation()) {
      stale_->push_back(absl::StrCat(
          worker_->task(), " (incarnation ", worker_->incarnation(),
          ") served ", key, " naming incarnation ", parsed.src_incarnation));
    }
  }

  Worker* const worker_;
  std::vector<std::string>* const stale_;
  const AnswerHook* const on_answer_;
  std::set<int64_t> cleaned_;
  bool crashed_ = false;
};

std::string SimCluster::WorkerTask(int i) {
  return absl::StrCat("/job:worker/replica:0/task:", i);
}

SimCluster::TaskEnv SimCluster::NewTaskEnv(const std::string& task,
                                           int64_t skew) {
  TaskEnv t;
  t.clock = std::make_shared<SkewedClock>(&sim_->loop, skew);
  t.env = std::make_unique<Env>();
  t.env->clock = t.clock.get();
  t.env->scheduler = &sim_->loop;
  t.env->random = sim_->random.Stream(absl::StrCat("runtime", task));
  t.env->transport = network_->NewEndpoint(task);
  return t;
}

absl::Status SimCluster::Create(SimEnv* sim, const SimClusterOptions& options,
                                std::unique_ptr<SimCluster>* out) {
  if (options.cpus.empty() || options.cpus.size() > 8) {
    return absl::InvalidArgumentError("a simulated cluster has 1..8 workers");
  }
  if (!options.worker_tasks.empty() &&
      options.worker_tasks.size() != options.cpus.size()) {
    return absl::InvalidArgumentError(
        "a simulated cluster names every worker or none");
  }
  std::unique_ptr<SimCluster> c(new SimCluster(sim));
  c->worker_options_ = options.worker;
  c->on_worker_answer_ = options.on_worker_answer;
  c->network_ = std::make_unique<SimNetwork>(
      &sim->loop, sim->random.Stream("network"), options.network);
  std::vector<std::string> tasks;
  c->workers_.resize(options.cpus.size());
  for (size_t i = 0; i < options.cpus.size(); ++i) {
    WorkerSlot& slot = c->workers_[i];
    if (options.cpus[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("worker ", i, " has no CPU"));
    }
    slot.task = options.worker_tasks.empty() ? WorkerTask(static_cast<int>(i))
                                             : options.worker_tasks[i];
    slot.cpus = options.cpus[i];
    slot.skew =
        i < options.worker_skew_nanos.size() ? options.worker_skew_nanos[i] : 0;
    absl::Status s = c->StartWorker(&slot);
    if (!s.ok()) return s;
    tasks.push_back(slot.task);
  }
  c->master_options_ = options.master;
  c->master_skew_ = options.master_skew_nanos;
  c->worker_tasks_ = tasks;
  c->client_ = c->NewTaskEnv(kClientTask, 0);
  absl::Status s = c->StartMaster();
  if (!s.ok()) return s;
  *out = std::move(c);
  return absl::OkStatus();
}

absl::Status SimCluster::StartMaster() {
  master_env_ = NewTaskEnv(kMasterTask, master_skew_);
  master_ = std::make_unique<Master>(master_env_.env.get(), worker_tasks_,
                                     master_options_);
  return master_env_.env->transport->Serve(kMasterTask, master_.get());
}

absl::Status SimCluster::StartWorker(WorkerSlot* slot) {
  slot->env = NewTaskEnv(slot->task, slot->skew);
  absl::Status s = Worker::Create(slot->env.env.get(), slot->task, slot->cpus,
                                  worker_options_, &slot->live);
  if (!s.ok()) return s;
  slot->probe = std::make_shared<WorkerProbe>(slot->live.get(), &stale_recvs_,
                                              &on_worker_answer_);
  return slot->env.env->transport->Serve(slot->task, slot->probe.get());
}

SimCluster::~SimCluster() {
  if (master_ != nullptr) network_->Crash(kMasterTask);
  for (WorkerSlot& slot : workers_) {
    if (slot.live != nullptr) network_->Crash(slot.task);
  }
  // Let whatever the shutdown queued unwind before freeing its owners.
  sim_->loop.RunUntilIdle();
  master_.reset();
  zombie_masters_.clear();
  for (WorkerSlot& slot : workers_) {
    slot.probe.reset();
    slot.live.reset();
  }
  dead_probes_.clear();
  zombies_.clear();
  sim_->loop.RunUntilIdle();
}

std::unique_ptr<DistributedSession> SimCluster::NewSession(
    const ConfigProto& config) {
  SessionOptions opts;
  opts.env = client_.env.get();
  opts.config = config;
  return std::make_unique<DistributedSession>(opts, kMasterTask);
}

void SimCluster::CrashWorker(int i) {
  WorkerSlot& slot = workers_[i];
  if (slot.live == nullptr) return;
  network_->Crash(slot.task);
  slot.live->AbortAllSteps(
      absl::AbortedError(absl::StrCat("Worker ", slot.task, " crashed")));
  zombies_.push_back(std::move(slot.live));
  slot.probe->MarkCrashed();
  dead_probes_.push_back(std::move(slot.probe));
  dead_envs_.push_back(std::move(slot.env));
}

void SimCluster::CrashMaster() {
  if (master_ == nullptr) return;
  network_->Crash(kMasterTask);
  zombie_masters_.push_back(std::move(master_));
  dead_envs_.push_back(std::move(master_env_));
}

absl::Status SimCluster::RestartMaster() {
  if (master_ != nullptr) return absl::OkStatus();
  ++restarts_;
  return StartMaster();
}

absl::Status SimCluster::RestartWorker(int i) {
  WorkerSlot& slot = workers_[i];
  if (slot.live != nullptr) return absl::OkStatus();
  ++restarts_;
  return StartWorker(&slot);
}

}  // namespace stepflow
