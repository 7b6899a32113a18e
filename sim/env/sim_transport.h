// SimNetwork: the simulated network between the tasks of a simulated
// cluster, and the Transport (runtime/env/transport.h) each task sees.
//
// Every call is a real message exchange: the request is serialised with the
// production proto code, parsed into a fresh message of the method's type
// (runtime/distributed/methods.h) and handed to the target task's
// RpcHandler at a later virtual time; the response travels back the same
// way. Nothing is shared between caller and handler. Everything runs on
// the SimEventLoop; each decision draws from the network's Random, so a
// seed fixes every delay and fault.
//
// Fault model (what a TCP-based RPC system can observe):
//   * latency: min_latency plus a heavy-tailed (Pareto) extra per message,
//     capped; independent per direction, so messages reorder.
//   * a broken connection (drop_per_mille): the call fails Unavailable
//     after a detection delay; the request may or may not have reached the
//     handler first (a coin), whose answer is then lost.
//   * duplicates (duplicate_per_mille): the request reaches the handler a
//     second time, later; that answer is discarded (handlers must reject
//     repeated request ids themselves).
//   * partitions: Partition(a, b) cuts a->b and b->a; PartitionOneWay(a, b)
//     only a->b. A request on a cut link, or an answer on a cut return
//     link, is lost; the call fails Unavailable ("connection timed out")
//     after connection_timeout. Heal() restores every link.
//   * clogs: Clog(task, until) holds messages to and from the task until
//     that virtual time (a stalled NIC / long GC pause).
//   * crashes: Crash(task) stops its handler at once: calls it was
//     handling fail Unavailable for their callers (after the detection
//     delay), its late answers are dropped, calls to it are refused
//     (Unavailable) until someone Serve()s the task again, and calls made
//     through the endpoints it had (its zombie's outgoing traffic) fail
//     locally without being delivered.
// Deadlines (CallOptions.timeout_nanos) and cancellation complete the call
// for its caller (DeadlineExceeded / Cancelled); a request already on its
// way still arrives, like a real one.
//
// Tracing (with a recorder on the loop): SIM_RPC_SEND {id, from, to,
// method, bytes}, SIM_RPC_DELIVER {id, copy}, SIM_RPC_DONE {id, status} and
// SIM_FAULT {fault, ...}; payload digests are FNV-1a of the wire bytes.
//
// Ownership: the loop and random are borrowed and must outlive the
// network; handlers are borrowed until StopServing/Crash. Endpoints are
// owned by the network. Pending calls are dropped (their `done` never
// runs) if the network is destroyed first: destroy it after the loop ran
// idle.
// Thread-safety: none — the simulator's one thread.
#ifndef STEPFLOW_SIM_SIM_TRANSPORT_H_
#define STEPFLOW_SIM_SIM_TRANSPORT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/env/random.h"
#include "runtime/env/transport.h"
#include "sim/env/event_loop.h"

namespace stepflow {

struct SimNetworkOptions {
  int64_t min_latency_nanos = 50 * 1000;
  // Pareto tail: extra = tail_scale * (U^(-1/alpha) - 1), capped.
  int64_t tail_scale_nanos = 100 * 1000;
  double tail_alpha = 1.5;
  int64_t max_extra_latency_nanos = 200 * 1000 * 1000;
  int drop_per_mille = 0;
  int duplicate_per_mille = 0;
  // How long a lost message leaves its call hanging before Unavailable.
  int64_t connection_timeout_nanos = 1000 * 1000 * 1000;
};

struct SimNetworkStats {
  int64_t calls = 0;
  int64_t delivered = 0;
  int64_t duplicates = 0;
  int64_t broken = 0;       // Failed by a broken connection.
  int64_t partitioned = 0;  // Lost on a cut link.
  int64_t refused = 0;      // No handler at delivery.
  int64_t bytes = 0;        // Request and response wire bytes.
};

class SimNetwork {
 public:
  SimNetwork(SimEventLoop* loop, Random* random,
             const SimNetworkOptions& options);
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  // The Transport that `task` (one incarnation of it) uses: calls made
  // through it come from `task`; Serve/StopServing act on any task.
  // Endpoints stay valid until the network is destroyed; after
  // Crash(task), the endpoints taken before it are dead.
  Transport* NewEndpoint(const std::string& task);

  // Faults (recorded as SIM_FAULT).
  void Partition(const std::string& a, const std::string& b);
  void PartitionOneWay(const std::string& from, const std::string& to);
  void Clog(const std::string& task, int64_t until_nanos);
  void Heal();  // Every link back up, every clog lifted.
  // Changes the broken-connection and duplicate rates from now on.
  void SetFaultRates(int drop_per_mille, int duplicate_per_mille);
  void Crash(const std::string& task);

  bool IsServing(const std::string& task) const;
  const SimNetworkStats& stats() const { return stats_; }
  // Calls not yet completed for their callers.
  size_t NumPendingCalls() const { return calls_.size(); }

 private:
  class Endpoint;
  struct Call;

  void StartCall(const std::string& from, uint64_t from_epoch,
                 absl::string_view to, absl::string_view method,
                 const google::protobuf::Message& request,
                 google::protobuf::Message* response,
                 const CallOptions& options, Transport::DoneCallback done);
  // StartCall's pieces, in order. SendRequest copies the request as the
  // wire would and traces it (InvalidArgument when it does not fit the
  // method's type). WatchCancellation completes the call at once and
  // returns false if `cancellation` was cancelled already. Transmit puts
  // the call on the network: partitions, broken connections, delivery and
  // duplicates.
  absl::Status SendRequest(const std::shared_ptr<Call>& call,
                           const google::protobuf::Message& request);
  bool WatchCancellation(const std::shared_ptr<Call>& call,
                         CancellationManager* cancellation);
  void WatchDeadline(const std::shared_ptr<Call>& call, int64_t timeout);
  void Transmit(const std::shared_ptr<Call>& call);
  void Deliver(std::shared_ptr<Call> call, bool duplicate);
  void Answer(std::shared_ptr<Call> call, uint64_t epoch, bool duplicate,
              absl::Status status);
  // Completes the call for its caller (first completion wins).
  void Complete(const std::shared_ptr<Call>& call, absl::Status status);
  // Fails the call with Unavailable after `delay`.
  void FailLater(const std::shared_ptr<Call>& call, int64_t delay,
                 const std::string& why);
  static bool Serialize(const google::protobuf::Message& message,
                        std::string* wire);
  int64_t Latency();
  // Earliest time a message from `from` to `to` sent now may arrive.
  int64_t ArrivalTime(const std::string& from, const std::string& to);
  bool LinkCut(const std::string& from, const std::string& to) const;
  bool Chance(int per_mille);
  uint64_t Epoch(const std::string& task) const;
  void TraceFault(TraceFields fields);

  SimEventLoop* const loop_;
  Random* const random_;
  const SimNetworkOptions options_;
  int drop_per_mille_;
  int duplicate_per_mille_;
  SimNetworkStats stats_;
  uint64_t next_call_id_ = 1;
  std::map<std::string, RpcHandler*> handlers_;
  // Bumped by Crash(): endpoints and deliveries of older epochs are dead.
  std::map<std::string, uint64_t> epochs_;
  std::set<std::pair<std::string, std::string>> cut_;  // (from, to).
  std::map<std::string, int64_t> clogged_until_;
  std::map<uint64_t, std::shared_ptr<Call>> calls_;  // Pending, by id.
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_TRANSPORT_H_
