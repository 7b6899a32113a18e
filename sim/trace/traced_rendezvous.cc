#include "sim/trace/traced_rendezvous.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "sim/trace/tensor_digest.h"

namespace stepflow {

TracedRendezvous::TracedRendezvous(SimEventLoop* loop, std::string task,
                                   int64_t step_id,
                                   std::shared_ptr<RendezvousStats> stats)
    : loop_(loop),
      task_(std::move(task)),
      step_id_(step_id),
      stats_(std::move(stats)),
      inner_(new IntraProcessRendezvous()) {
  ++stats_->created;
  ++stats_->live;
  loop_->Trace(SIM_NOTE, task_, {{"event", "new_step"}, {"step", step_id_}});
}

TracedRendezvous::~TracedRendezvous() {
  int64_t unused = 0;
  if (!aborted_) {  // An abort drops queued values.
    for (const auto& [key, n] : client_values_) unused += n > 0 ? n : 0;
  }
  const int64_t pending = static_cast<int64_t>(inner_->NumPendingForTest());
  stats_->unused_client_values += unused;
  stats_->leaked_entries += pending > unused ? pending - unused : 0;
  // Completes Recvs still waiting (with Cancelled), through our wrappers.
  inner_->Unref();
  --stats_->live;
}

absl::Status TracedRendezvous::Send(const ParsedKey& key, const Args& args,
                                    const Tensor& val, bool is_dead) {
  absl::Status s = inner_->Send(key, args, val, is_dead);
  if (s.ok() && key.src_device == key.dst_device)
    ++client_values_[key.full_key];
  loop_->Trace(SIM_RENDEZVOUS_SEND, task_,
               {{"step", step_id_},
                {"key", key.full_key},
                {"dead", is_dead ? "1" : "0"},
                {"status", absl::StatusCodeToString(s.code())}},
               is_dead ? 0 : TensorDigest(val));
  return s;
}

void TracedRendezvous::RecvAsync(const ParsedKey& key, const Args& args,
                                 DoneCallback done) {
  ++stats_->pending_recvs;
  SimEventLoop* loop = loop_;
  std::shared_ptr<RendezvousStats> stats = stats_;
  // Client-terminated Recvs (partial-run fetches) complete before the
  // rendezvous is destroyed; `this` is alive when they count.
  std::map<std::string, int64_t>* client_values =
      key.src_device == key.dst_device ? &client_values_ : nullptr;
  inner_->RecvAsync(
      key, args,
      [loop, stats, client_values, task = task_, step = step_id_,
       full_key = key.full_key, done = std::move(done)](
          const absl::Status& s, const Args& send_args, const Args& recv_args,
          const Tensor& val, bool is_dead) {
        --stats->pending_recvs;
        if (s.ok() && client_values != nullptr) --(*client_values)[full_key];
        loop->Trace(SIM_RENDEZVOUS_RECV, task,
                    {{"step", step},
                     {"key", full_key},
                     {"dead", is_dead ? "1" : "0"},
                     {"status", absl::StatusCodeToString(s.code())}},
                    s.ok() && !is_dead ? TensorDigest(val) : 0);
        done(s, send_args, recv_args, val, is_dead);
      });
}

void TracedRendezvous::StartAbort(const absl::Status& status) {
  if (!status.ok()) aborted_ = true;
  loop_->Trace(SIM_RENDEZVOUS_ABORT, task_,
               {{"step", step_id_},
                {"status", absl::StatusCodeToString(status.code())}});
  inner_->StartAbort(status);
}

RendezvousFactory NewTracedRendezvousFactory(
    SimEventLoop* loop, const std::string& task,
    std::shared_ptr<RendezvousStats> stats) {
  return [loop, task, stats](int64_t step_id) -> Rendezvous* {
    return new TracedRendezvous(loop, task, step_id, stats);
  };
}

}  // namespace stepflow
