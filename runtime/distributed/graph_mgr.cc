#include "runtime/distributed/graph_mgr.h"

#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/common/executor.h"
#include "runtime/common/step_stats_collector.h"
#include "runtime/distributed/device_allocator.h"
#include "runtime/distributed/status_group.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {

// One registered partition: an executor per local device.
struct GraphMgr::Item {
  std::vector<PartitionExecutor> units;  // Sorted by device name.
};

GraphMgr::GraphMgr(Env* env, const DeviceMgr* device_mgr,
                   std::string handle_prefix)
    : env_(env),
      device_mgr_(device_mgr),
      handle_prefix_(std::move(handle_prefix)) {}

GraphMgr::~GraphMgr() = default;

size_t GraphMgr::NumGraphs() const {
  absl::MutexLock l(&mu_);
  return graphs_.size();
}

absl::Status GraphMgr::Register(const GraphDef& graph_def,
                                std::string* handle) {
  auto graph = std::make_unique<Graph>();
  GraphConstructorOptions gopts;
  gopts.allow_internal_ops = true;
  gopts.expect_device_spec = true;
  // Partitions come from a client graph the master checked.
  gopts.infer_shapes = false;
  SF_RETURN_IF_ERROR(ConvertGraphDefToGraph(gopts, graph_def, graph.get()));
  // Every node must sit on one of this worker's devices; use full names.
  for (Node* n : graph->op_nodes()) {
    Device* d = nullptr;
    absl::Status s = device_mgr_->LookupDevice(n->assigned_device_name(), &d);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          FormatNodeName(n->name()), " is placed on '",
          n->assigned_device_name(),
          "', which is not a device of this worker: ", s.message()));
    }
    n->set_assigned_device_name(d->name());
  }

  PartitionExecutorsOptions popts;
  popts.env = env_;
  popts.device_mgr = device_mgr_;
  popts.op_segment = &op_segment_;
  popts.function_runtimes = &function_runtimes_;
  auto item = std::make_shared<Item>();
  SF_RETURN_IF_ERROR(
      BuildPartitionExecutors(popts, std::move(graph), &item->units));

  absl::MutexLock l(&mu_);
  *handle = absl::StrCat(handle_prefix_, "/graph_", next_id_++);
  graphs_[*handle] = std::move(item);
  return absl::OkStatus();
}

absl::Status GraphMgr::Deregister(const std::string& handle) {
  absl::MutexLock l(&mu_);
  if (graphs_.erase(handle) == 0) {
    return absl::AbortedError(
        absl::StrCat("Graph handle '", handle, "' is not registered"));
  }
  return absl::OkStatus();
}

namespace {

// Takes each of `keys` from the step's rendezvous into response->recv, in
// order, then calls `done` (the first error, if any).
void RecvFetches(const std::shared_ptr<WorkerStep>& step,
                 const std::vector<std::string>& keys,
                 RunGraphResponse* response, GraphMgr::DoneCallback done) {
  for (const std::string& k : keys) response->add_recv()->set_name(k);
  auto group =
      StatusGroup::Create(static_cast<int>(keys.size()),
                          [done, step](const absl::Status& s) { done(s); });
  for (size_t i = 0; i < keys.size(); ++i) {
    Rendezvous::ParsedKey key;
    absl::Status s = Rendezvous::ParseKey(keys[i], &key);
    if (!s.ok()) {
      group->Report(absl::InvalidArgumentError(
          absl::StrCat("Bad fetch key '", keys[i], "': ", s.message())));
      continue;
    }
    Rendezvous::Args args;
    args.cancellation_manager = &step->cancellation;
    NamedTensorProto* out = response->mutable_recv(static_cast<int>(i));
    step->rendezvous->RecvAsync(
        key, args,
        [group, out](const absl::Status& s, const Rendezvous::Args&,
                     const Rendezvous::Args&, const Tensor& v, bool is_dead) {
          if (s.ok() && is_dead) {
            group->Report(absl::InvalidArgumentError(absl::StrCat(
                "The tensor returned for ", out->name(), " was not valid.")));
            return;
          }
          absl::Status status = s;
          if (status.ok()) status = CheckEncodable(v);
          if (status.ok()) TensorToProto(v, out->mutable_tensor());
          group->Report(status);
        });
  }
}

}  // namespace

void GraphMgr::ExecuteAsync(const std::string& handle,
                            std::shared_ptr<WorkerStep> step,
                            const RunGraphRequest& request,
                            RunGraphResponse* response, DoneCallback done) {
  std::shared_ptr<Item> item;
  {
    absl::MutexLock l(&mu_);
    auto it = graphs_.find(handle);
    if (it != graphs_.end()) item = it->second;
  }
  if (item == nullptr) {
    done(absl::AbortedError(
        absl::StrCat("Graph handle '", handle,
                     "' is not registered (the worker may have restarted)")));
    return;
  }

  // The client's feeds.
  for (const NamedTensorProto& send : request.send()) {
    Rendezvous::ParsedKey key;
    absl::Status s = Rendezvous::ParseKey(send.name(), &key);
    Tensor value;
    if (s.ok())
      s = TensorFromProto(AllocatorForDevice(device_mgr_, key.dst_device),
                          send.tensor(), &value);
    if (!s.ok()) {
      // A feed over the memory budget stays ResourceExhausted.
      done(absl::Status(absl::IsResourceExhausted(s)
                            ? s.code()
                            : absl::StatusCode::kInvalidArgument,
                        absl::StrCat("Bad feed '", send.name(), "' for step ",
                                     request.step_id(), ": ", s.message())));
      return;
    }
    // Fails only once the step was aborted (a partial run whose executors
    // or transfers failed): that is the step's error, not the feed's.
    s = step->rendezvous->Send(key, Rendezvous::Args(), value, false);
    if (!s.ok()) {
      done(s);
      return;
    }
  }
  std::vector<std::string> recv_keys(request.recv_key().begin(),
                                     request.recv_key().end());

  if (request.is_partial()) {
    // The first call of a partial run starts the executors; each call
    // answers once its fetches are in, the last once the executors ended.
    if (step->StartPartialOnce()) {
      RunExecutors(item, step, request, /*response=*/nullptr,
                   [step](const absl::Status& s) {
                     // Fetches still waiting get the executors' error.
                     if (!s.ok()) step->rendezvous->StartAbort(s);
                     step->FinishPartial(s);
                   });
    }
    const bool last = request.is_last_partial_run();
    RecvFetches(step, recv_keys, response,
                [step, last, done](const absl::Status& s) {
                  if (!s.ok() || !last) {
                    done(s);
                    return;
                  }
                  step->WhenPartialDone(done);
                });
    return;
  }

  RunExecutors(item, step, request, response,
               [step, recv_keys, response, done](const absl::Status& s) {
                 if (!s.ok()) {
                   done(s);
                   return;
                 }
                 RecvFetches(step, recv_keys, response, done);
               });
}

void GraphMgr::RunExecutors(std::shared_ptr<Item> item,
                            std::shared_ptr<WorkerStep> step,
                            const RunGraphRequest& request,
                            RunGraphResponse* response, DoneCallback done) {
  // The step's deadline.
  auto deadline_passed = std::make_shared<std::atomic<bool>>(false);
  Scheduler::TimerId timer = 0;
  const int64_t deadline = request.exec_opts().deadline_nanos();
  if (deadline > 0) {
    std::weak_ptr<WorkerStep> weak = step;
    timer = env_->scheduler->ScheduleAfter(deadline, [weak, deadline_passed] {
      if (auto s = weak.lock()) {
        deadline_passed->store(true);
        s->cancellation.StartCancel();
      }
    });
  }

  std::shared_ptr<StepStatsCollector> stats;
  if (response != nullptr && request.exec_opts().record_timeline()) {
    stats = std::make_shared<StepStatsCollector>();
  }
  const int64_t step_id = request.step_id();
  const DeviceMgr* dm = device_mgr_;
  auto container = std::make_shared<ScopedStepContainer>(
      step_id, [dm](const std::string& c) {
        for (Device* d : dm->ListDevices()) {
          d->resource_manager()->Cleanup(c).IgnoreError();
        }
      });
  Env* env = env_;
  auto after_executors = [item, step, stats, container, response, done, timer,
                          env, deadline, deadline_passed,
                          step_id](const absl::Status& exec_status) {
    if (timer != 0) env->scheduler->CancelTimer(timer);
    if (stats != nullptr) stats->Finalize(response->mutable_step_stats());
    if (!exec_status.ok() && deadline_passed->load()) {
      done(absl::DeadlineExceededError(
          absl::StrCat("Step ", step_id, " exceeded its deadline of ", deadline,
                       " ns and was cancelled")));
      return;
    }
    done(exec_status);
  };

  auto group = StatusGroup::Create(static_cast<int>(item->units.size()),
                                   std::move(after_executors));
  Executor::Args args;
  args.step_id = step_id;
  args.rendezvous = step->rendezvous;
  args.cancellation_manager = &step->cancellation;
  args.stats_collector = stats.get();
  args.step_container = container.get();
  for (auto& unit : item->units) {
    unit.executor->RunAsync(
        args, [group](const absl::Status& s) { group->Report(s); });
  }
}

}  // namespace stepflow
