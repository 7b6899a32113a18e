#include "runtime/distributed/rpc/grpc_server.h"

#include <algorithm>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "runtime/distributed/call_recorder.h"
#include "runtime/distributed/master.h"
#include "runtime/distributed/rpc/draining_handler.h"
#include "runtime/distributed/rpc/grpc_transport.h"
#include "runtime/distributed/service_mux.h"
#include "runtime/distributed/worker.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/memory_budget.h"

namespace stepflow {

class GrpcServer::Impl {
 public:
  ~Impl() {
    if (transport_ != nullptr) {
      transport_->StopServing(task_);
      transport_->StopServing(GrpcTransport::kDefaultTask);
    }
    // The master first: its sessions may still talk to the worker.
    master_.reset();
    // Then the worker's steps: cancelled, and their executors finished
    // before the devices they run on go away (a wedged kernel keeps this
    // waiting; grpc_server's shutdown watchdog bounds that).
    if (worker_ != nullptr) {
      worker_->AbortAllSteps(absl::AbortedError(
          absl::StrCat("Worker ", task_, " is shutting down")));
      while (worker_->NumRunningGraphs() > 0) {
        absl::SleepFor(absl::Milliseconds(1));
      }
    }
    worker_.reset();
    transport_.reset();
    real_env_.reset();
    // Tensors the server made may outlive it (a caller's fetched values,
    // buffers a device budget still accounts) and release into the budget
    // later, from any thread: it is kept for the process's lifetime, in a
    // list that keeps it reachable.
    if (process_memory_ != nullptr) {
      static absl::Mutex kept_mu(absl::kConstInit);
      static auto* const kept = new std::vector<MemoryBudget*>;
      absl::MutexLock l(&kept_mu);
      kept->push_back(process_memory_);
      process_memory_ = nullptr;
    }
  }

  std::string task_;
  std::string address_;
  std::unique_ptr<RealEnv> real_env_;
  Env env_;
  // Charged by the worker's devices; outlives the server (see the
  // destructor).
  MemoryBudget* process_memory_ = nullptr;
  std::unique_ptr<GrpcTransport> transport_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<Master> master_;
  // The master as served: refuses new calls once the server drains.
  std::unique_ptr<DrainingHandler> master_calls_;
  ServiceMux mux_;
  // Options::record_path: every served call goes through it to mux_.
  std::unique_ptr<CallRecorder> recorder_;
};

namespace {

// The header params of a recording of this server (call_recorder.h).
std::vector<std::pair<std::string, std::string>> RecordParams(
    const GrpcServer::Options& options, const std::vector<std::string>& tasks,
    const Worker& worker, const Master::Options& master) {
  return {
      {"cluster", absl::StrJoin(tasks, ",")},
      {"cpus", absl::StrCat(options.cpus)},
      {"incarnation", absl::StrCat(worker.incarnation())},
      {"session_gc_ns", absl::StrCat(master.session_gc_nanos)},
      {"health_check_interval_ns",
       absl::StrCat(master.health_check_interval_nanos)},
      {"health_check_max_missed", absl::StrCat(master.health_check_max_missed)},
      {"session_lease_ns",
       absl::StrCat(std::max<int64_t>(0, options.session_lease_seconds) *
                    1000000000)},
      {"memory_limit_bytes", absl::StrCat(options.memory_limit_bytes)},
      // Wall time, to line up the recordings of several processes.
      {"start_unix_ns", absl::StrCat(absl::ToUnixNanos(absl::Now()))},
  };
}

}  // namespace

absl::Status GrpcServer::Create(const Options& options,
                                std::unique_ptr<GrpcServer>* out) {
  if (options.cluster.empty()) {
    return absl::InvalidArgumentError("the cluster has no task");
  }
  std::string own_address;
  absl::Status s = options.cluster.FindTask(options.job_name,
                                            options.task_index, &own_address);
  if (!s.ok()) return s;
  absl::Status flags =
      CheckThreadCountFlag("inter_op_threads", options.inter_op_threads);
  if (!flags.ok()) return flags;
  flags = CheckThreadCountFlag("intra_op_threads", options.intra_op_threads);
  if (!flags.ok()) return flags;
  if (options.memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory limit must be at least 0, got ", options.memory_limit_bytes));
  }
  if (options.tls.enabled() &&
      (options.tls.cert_chain.empty() || options.tls.private_key.empty())) {
    return absl::InvalidArgumentError(
        "a TLS server needs a certificate and its private key, not only a "
        "CA");
  }
  GrpcTransport::Options transport_options;
  transport_options.addresses = options.cluster.TaskAddresses();
  transport_options.tls = options.tls;
  std::vector<std::string> tasks;
  for (const auto& [task, address] : transport_options.addresses) {
    tasks.push_back(task);
  }
  std::string host;
  int port = 0;
  s = SplitHostPort(own_address, &host, &port);
  if (!s.ok()) return s;
  transport_options.listen_address = absl::StrCat(options.bind_host, ":", port);

  auto impl = std::make_unique<Impl>();
  impl->task_ = ClusterSpec::TaskName(options.job_name, options.task_index);
  impl->real_env_ = RealEnv::Create(options.inter_op_threads);
  impl->env_ = *impl->real_env_->env();
  auto transport =
      GrpcTransport::Create(transport_options, impl->env_.scheduler);
  if (!transport.ok()) return transport.status();
  impl->transport_ = std::move(*transport);
  impl->env_.transport = impl->transport_.get();
  impl->address_ =
      absl::StrCat(options.bind_host, ":", impl->transport_->bound_port());
  if (port == 0) {
    // The kernel chose the port: this task's own entry must say which.
    impl->transport_->SetAddress(impl->task_, impl->address_);
  }

  impl->process_memory_ =
      new MemoryBudget(impl->task_, options.memory_limit_bytes);
  Worker::Options worker_options;
  worker_options.session_lease_nanos =
      std::max<int64_t>(0, options.session_lease_seconds) * 1000000000;
  worker_options.memory.process_memory = impl->process_memory_;
  worker_options.memory.intra_op_parallelism_threads = options.intra_op_threads;
  s = Worker::Create(&impl->env_, impl->task_, options.cpus, worker_options,
                     &impl->worker_);
  if (!s.ok()) return s;
  Master::Options master_options;
  master_options.session_gc_nanos =
      std::max<int64_t>(0, options.session_gc_seconds) * 1000000000;
  master_options.task = impl->task_;
  master_options.health_check_interval_nanos =
      std::max<int64_t>(0, options.health_check_interval_ms) * 1000000;
  master_options.health_check_max_missed = options.health_check_max_missed;
  impl->master_ = std::make_unique<Master>(&impl->env_, tasks, master_options);
  impl->mux_.Add("WorkerService", impl->worker_.get());
  impl->master_calls_ = std::make_unique<DrainingHandler>(
      impl->master_.get(), std::set<std::string>{"MasterService/CloseSession"});
  impl->mux_.Add("MasterService", impl->master_calls_.get());
  RpcHandler* served = &impl->mux_;
  if (!options.record_path.empty()) {
    CallRecorder::Options record;
    record.path = options.record_path;
    record.task = impl->task_;
    record.clock = impl->env_.clock;
    record.params =
        RecordParams(options, tasks, *impl->worker_, master_options);
    s = CallRecorder::Create(&impl->mux_, record, &impl->recorder_);
    if (!s.ok()) return s;
    served = impl->recorder_.get();
  }
  s = impl->transport_->Serve(impl->task_, served);
  if (!s.ok()) return s;
  s = impl->transport_->Serve(GrpcTransport::kDefaultTask, served);
  if (!s.ok()) return s;
  out->reset(new GrpcServer(std::move(impl)));
  return absl::OkStatus();
}

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GrpcServer::~GrpcServer() = default;

bool GrpcServer::Shutdown(absl::Duration grace) {
  impl_->master_calls_->StartDraining(
      absl::StrCat("task ", impl_->task_, " is shutting down"));
  // Drained: no client call in flight and every session closed (a client
  // whose step just finished is about to close its session).
  const absl::Time deadline = absl::Now() + grace;
  bool drained = false;
  while (!drained) {
    const absl::Duration left = deadline - absl::Now();
    // Sessions first: the CloseSession that removes the last one is still
    // in flight when it does, so idleness observed afterwards means it has
    // answered (the other order could cancel that CloseSession).
    const bool no_sessions = impl_->master_->NumSessions() == 0;
    const bool idle = impl_->master_calls_->AwaitIdle(
        std::max(absl::ZeroDuration(), std::min(left, absl::Milliseconds(20))));
    drained = no_sessions && idle;
    if (left <= absl::ZeroDuration()) break;
  }
  // Whatever still runs is cancelled now: served calls (their clients
  // see Cancelled) and the calls this task makes.
  impl_->transport_->Shutdown(absl::ZeroDuration());
  return drained;
}

const std::string& GrpcServer::task() const { return impl_->task_; }
std::string GrpcServer::address() const { return impl_->address_; }

}  // namespace stepflow
