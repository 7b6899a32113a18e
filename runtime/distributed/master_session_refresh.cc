// MasterSession: worker restarts (see master_session.h).
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_util.h"
#include "runtime/distributed/master_session.h"
#include "runtime/distributed/master_session_internal.h"
#include "runtime/distributed/status_group.h"

namespace stepflow {

using master_session_internal::OperationTimeoutNanos;

void MasterSession::RefreshWorkersIfNeeded(DoneCallback done) {
  std::shared_ptr<const ClusterView> old_view;
  bool current = false;
  {
    absl::MutexLock l(&mu_);
    if (!needs_refresh_) {
      current = true;
    } else {
      refresh_waiters_.push_back(std::move(done));
      if (refreshing_) return;
      refreshing_ = true;
      old_view = view_;
    }
  }
  if (current) {
    done(absl::OkStatus());
    return;
  }
  auto now =
      std::make_shared<std::vector<WorkerInfo>>(old_view->workers.size());
  auto self = shared_from_this();
  auto group =
      StatusGroup::Create(static_cast<int>(now->size()),
                          [self, old_view, now](const absl::Status& s) {
                            if (!s.ok()) {
                              self->FinishRefresh(s);
                              return;
                            }
                            self->RefreshedWorkers(old_view, std::move(*now));
                          });
  for (size_t i = 0; i < now->size(); ++i) {
    (*now)[i].task = old_view->workers[i].task;
    CallOptions opts;
    opts.timeout_nanos = OperationTimeoutNanos(config_);
    opts.cancellation = &cancellation_;
    CallTask<GetStatusRequest, GetStatusResponse>(
        env_, (*now)[i].task, "WorkerService/GetStatus", GetStatusRequest(),
        opts, [group, now, i](const absl::Status& s, GetStatusResponse* r) {
          if (s.ok()) SetWorkerDevices(*r, &(*now)[i]);
          group->Report(s);
        });
  }
}

void MasterSession::RefreshedWorkers(
    std::shared_ptr<const ClusterView> old_view, std::vector<WorkerInfo> now) {
  std::vector<std::string> restarted;  // Tasks.
  for (size_t i = 0; i < now.size(); ++i) {
    const WorkerInfo& before = old_view->workers[i];
    if (now[i].incarnation == before.incarnation) continue;
    bool same_devices = now[i].devices.size() == before.devices.size();
    for (size_t d = 0; same_devices && d < now[i].devices.size(); ++d) {
      same_devices = now[i].devices[d].name() == before.devices[d].name();
    }
    if (!same_devices) {
      FinishRefresh(absl::FailedPreconditionError(absl::StrCat(
          "Worker ", now[i].task, " restarted with other devices than session ",
          handle_, " was placed on; create a new session")));
      return;
    }
    restarted.push_back(now[i].task);
  }
  if (restarted.empty()) {
    FinishRefresh(absl::OkStatus());
    return;
  }
  auto view = MakeView(std::move(now));
  auto self = shared_from_this();
  auto group = StatusGroup::Create(
      static_cast<int>(restarted.size()), [self, view](const absl::Status& s) {
        if (!s.ok()) {
          self->FinishRefresh(s);
          return;
        }
        std::shared_ptr<GraphExecutionState> old_state;
        {
          absl::MutexLock l(&self->mu_);
          old_state = self->state_;
        }
        std::unique_ptr<GraphExecutionState> state;
        if (old_state != nullptr) {
          GraphDef original;
          absl::Status st = old_state->GetOriginalGraphDef(&original);
          if (st.ok()) st = self->NewExecutionState(*view, original, &state);
          if (!st.ok()) {
            self->FinishRefresh(st);
            return;
          }
        }
        {
          absl::MutexLock l(&self->mu_);
          self->view_ = view;
          if (state != nullptr) self->state_ = std::move(state);
          self->signatures_.clear();
        }
        self->FinishRefresh(absl::OkStatus());
      });
  for (const std::string& task : restarted) {
    CreateWorkerSessionRequest cw;
    cw.set_session_handle(handle_);
    cw.set_worker_incarnation(view->FindWorker(task)->incarnation);
    NameMaster(&cw);
    CallOptions opts;
    opts.timeout_nanos = OperationTimeoutNanos(config_);
    opts.cancellation = &cancellation_;
    CallTask<CreateWorkerSessionRequest, CreateWorkerSessionResponse>(
        env_, task, "WorkerService/CreateWorkerSession", cw, opts,
        [group](const absl::Status& s, CreateWorkerSessionResponse*) {
          group->Report(s);
        });
  }
}

void MasterSession::FinishRefresh(const absl::Status& status) {
  std::vector<DoneCallback> waiters;
  {
    absl::MutexLock l(&mu_);
    refreshing_ = false;
    if (status.ok()) needs_refresh_ = false;
    waiters.swap(refresh_waiters_);
  }
  for (auto& w : waiters) w(status);
}

}  // namespace stepflow
