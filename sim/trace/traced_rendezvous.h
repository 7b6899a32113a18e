// TracedRendezvous: a step's IntraProcessRendezvous that records its traffic
// into the simulator's trace, and the SessionOptions::rendezvous_factory
// that makes one per step.
//
// Records (through SimEventLoop::Trace, task = the session's name):
//   SIM_NOTE {event=new_step, step}                   when the step's
//     rendezvous is created (one per Run / partial run);
//   SIM_RENDEZVOUS_SEND  {step, key, dead, status}    every Send (status is
//     what Send returned: non-OK after an abort); digest = the value's;
//   SIM_RENDEZVOUS_RECV  {step, key, dead, status}    when a Recv completes
//     (value, abort, cancellation or the rendezvous' destruction);
//   SIM_RENDEZVOUS_ABORT {step, status}               every StartAbort.
// `key` is the full key (it contains frame:iter).
//
// RendezvousStats counts, per session, what is alive: rendezvous objects,
// Recvs not yet completed, and entries (unreceived values or waiting Recvs)
// still in a rendezvous when it was destroyed. The `leaks` invariant reads
// them between steps. Values a client sent into a partial run that the
// pruned graph never receives (a declared feed no fetch or target needs:
// TensorFlow sends every fed value) are counted apart, as
// unused_client_values, not as leaked entries; client-terminated keys are
// those whose source and destination device are the same.
//
// Ownership: the loop is borrowed and must outlive every rendezvous made;
// the stats are shared. Thread-safety: as SimEventLoop (one thread).
#ifndef STEPFLOW_SIM_TRACED_RENDEZVOUS_H_
#define STEPFLOW_SIM_TRACED_RENDEZVOUS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "runtime/common/session_options.h"
#include "runtime/framework/rendezvous.h"
#include "sim/env/event_loop.h"

namespace stepflow {

class IntraProcessRendezvous;

struct RendezvousStats {
  int64_t created = 0;
  int64_t live = 0;            // Created and not yet destroyed.
  int64_t pending_recvs = 0;   // RecvAsync called, callback not yet run.
  int64_t leaked_entries = 0;  // Summed over destroyed rendezvous.
  int64_t unused_client_values = 0;
};

class TracedRendezvous : public Rendezvous {
 public:
  TracedRendezvous(SimEventLoop* loop, std::string task, int64_t step_id,
                   std::shared_ptr<RendezvousStats> stats);

  absl::Status Send(const ParsedKey& key, const Args& args, const Tensor& val,
                    bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

 protected:
  ~TracedRendezvous() override;

 private:
  SimEventLoop* const loop_;
  const std::string task_;
  const int64_t step_id_;
  const std::shared_ptr<RendezvousStats> stats_;
  IntraProcessRendezvous* const inner_;  // One reference, owned.
  // Client-terminated key -> values sent minus values received.
  std::map<std::string, int64_t> client_values_;
  bool aborted_ = false;
};

// A factory for SessionOptions::rendezvous_factory recording as `task`.
RendezvousFactory NewTracedRendezvousFactory(
    SimEventLoop* loop, const std::string& task,
    std::shared_ptr<RendezvousStats> stats);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_TRACED_RENDEZVOUS_H_
