#include "sim/env/sim_transport.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "runtime/distributed/methods.h"
#include "runtime/framework/cancellation.h"
#include "sim/trace/digest.h"

namespace stepflow {

// One call, from Call() until its caller's `done` is scheduled.
struct SimNetwork::Call {
  uint64_t id = 0;
  std::string from;
  std::string to;
  std::string method;
  std::unique_ptr<google::protobuf::Message> request;  // The parsed copy.
  google::protobuf::Message* caller_response = nullptr;
  Transport::DoneCallback done;
  bool completed = false;
  bool delivered = false;
  bool answer_lost = false;  // A broken connection after delivery.
  Scheduler::TimerId deadline_timer = 0;
  CancellationManager* cancellation = nullptr;
  CancellationToken token = 0;
  bool registered = false;
};

class SimNetwork::Endpoint : public Transport {
 public:
  Endpoint(SimNetwork* network, std::string task, uint64_t epoch)
      : network_(network), task_(std::move(task)), epoch_(epoch) {}

  void Call(absl::string_view task, absl::string_view method,
            const google::protobuf::Message& request,
            google::protobuf::Message* response, const CallOptions& options,
            DoneCallback done) override {
    network_->StartCall(task_, epoch_, task, method, request, response, options,
                        std::move(done));
  }
  absl::Status Serve(absl::string_view task, RpcHandler* handler) override {
    auto& slot = network_->handlers_[std::string(task)];
    if (slot != nullptr) {
      return absl::AlreadyExistsError(
          absl::StrCat("Task ", task, " is already served"));
    }
    slot = handler;
    network_->TraceFault({{"fault", "serve"}, {"task", std::string(task)}});
    return absl::OkStatus();
  }
  void StopServing(absl::string_view task) override {
    network_->handlers_.erase(std::string(task));
  }

 private:
  SimNetwork* const network_;
  const std::string task_;
  const uint64_t epoch_;
};

SimNetwork::SimNetwork(SimEventLoop* loop, Random* random,
                       const SimNetworkOptions& options)
    : loop_(loop),
      random_(random),
      options_(options),
      drop_per_mille_(options.drop_per_mille),
      duplicate_per_mille_(options.duplicate_per_mille) {}

void SimNetwork::SetFaultRates(int drop_per_mille, int duplicate_per_mille) {
  drop_per_mille_ = drop_per_mille;
  duplicate_per_mille_ = duplicate_per_mille;
  TraceFault({{"fault", "rates"},
              {"drop_per_mille", absl::StrCat(drop_per_mille)},
              {"duplicate_per_mille", absl::StrCat(duplicate_per_mille)}});
}

SimNetwork::~SimNetwork() = default;

Transport* SimNetwork::NewEndpoint(const std::string& task) {
  endpoints_.push_back(std::make_unique<Endpoint>(this, task, Epoch(task)));
  return endpoints_.back().get();
}

uint64_t SimNetwork::Epoch(const std::string& task) const {
  auto it = epochs_.find(task);
  return it == epochs_.end() ? 0 : it->second;
}

bool SimNetwork::IsServing(const std::string& task) const {
  return handlers_.count(task) > 0;
}

bool SimNetwork::Chance(int per_mille) {
  if (per_mille <= 0) return false;
  return random_->Uniform(1000) < static_cast<uint64_t>(per_mille);
}

int64_t SimNetwork::Latency() {
  // u in (0, 1]: the Pareto tail from the inverse CDF.
  const double u =
      (static_cast<double>(random_->New64() >> 11) + 1.0) / 9007199254740992.0;
  double extra = static_cast<double>(options_.tail_scale_nanos) *
                 (std::pow(u, -1.0 / options_.tail_alpha) - 1.0);
  extra =
      std::min(extra, static_cast<double>(options_.max_extra_latency_nanos));
  return options_.min_latency_nanos + static_cast<int64_t>(extra);
}

int64_t SimNetwork::ArrivalTime(const std::string& from,
                                const std::string& to) {
  const int64_t latency = Latency();
  int64_t start = loop_->NowNanos();
  for (const std::string* t : {&from, &to}) {
    auto it = clogged_until_.find(*t);
    if (it != clogged_until_.end()) start = std::max(start, it->second);
  }
  return start + latency;
}

bool SimNetwork::LinkCut(const std::string& from, const std::string& to) const {
  return cut_.count({from, to}) > 0;
}

void SimNetwork::TraceFault(TraceFields fields) {
  loop_->Trace(SIM_FAULT, "network", std::move(fields));
}

void SimNetwork::Partition(const std::string& a, const std::string& b) {
  cut_.insert({a, b});
  cut_.insert({b, a});
  TraceFault({{"fault", "partition"}, {"a", a}, {"b", b}});
}

void SimNetwork::PartitionOneWay(const std::string& from,
                                 const std::string& to) {
  cut_.insert({from, to});
  TraceFault({{"fault", "partition_one_way"}, {"from", from}, {"to", to}});
}

void SimNetwork::Clog(const std::string& task, int64_t until_nanos) {
  int64_t& until = clogged_until_[task];
  until = std::max(until, until_nanos);
  TraceFault({{"fault", "clog"},
              {"task", task},
              {"until", absl::StrCat(until_nanos)}});
}

void SimNetwork::Heal() {
  cut_.clear();
  clogged_until_.clear();
  TraceFault({{"fault", "heal"}});
}

void SimNetwork::Crash(const std::string& task) {
  ++epochs_[task];
  handlers_.erase(task);
  TraceFault({{"fault", "crash"}, {"task", task}});
  // Calls it was handling lose their answers; its own calls die with it.
  std::vector<std::shared_ptr<Call>> affected;
  for (const auto& [id, call] : calls_) {
    if ((call->to == task && call->delivered) || call->from == task) {
      affected.push_back(call);
    }
  }
  for (const auto& call : affected) {
    if (call->from == task) {
      Complete(call,
               absl::UnavailableError(absl::StrCat(
                   "Task ", task, " crashed while calling ", call->method)));
    } else {
      FailLater(call, Latency(),
                absl::StrCat("Task ", task, " crashed while handling ",
                             call->method));
    }
  }
}

void SimNetwork::StartCall(const std::string& from, uint64_t from_epoch,
                           absl::string_view to, absl::string_view method,
                           const google::protobuf::Message& request,
                           google::protobuf::Message* response,
                           const CallOptions& options,
                           Transport::DoneCallback done) {
  auto call = std::make_shared<Call>();
  call->id = next_call_id_++;
  call->from = from;
  call->to = std::string(to);
  call->method = std::string(method);
  call->caller_response = response;
  call->done = std::move(done);
  calls_[call->id] = call;
  ++stats_.calls;

  absl::Status s = SendRequest(call, request);
  if (!s.ok()) {
    Complete(call, s);
    return;
  }
  if (from_epoch != Epoch(from)) {
    // Sent by the zombie of a crashed task: it never reaches the wire.
    Complete(call, absl::UnavailableError(absl::StrCat(
                       "Task ", from, " has crashed (", method, ")")));
    return;
  }
  if (options.cancellation != nullptr &&
      !WatchCancellation(call, options.cancellation)) {
    return;
  }
  if (options.timeout_nanos > 0) WatchDeadline(call, options.timeout_nanos);
  Transmit(call);
}

absl::Status SimNetwork::SendRequest(const std::shared_ptr<Call>& call,
                                     const google::protobuf::Message& request) {
  std::unique_ptr<google::protobuf::Message> unused_response;
  absl::Status s =
      NewRequestAndResponse(call->method, &call->request, &unused_response);
  std::string wire;
  if (s.ok() &&
      (!Serialize(request, &wire) || !call->request->ParseFromString(wire))) {
    s = absl::InvalidArgumentError(absl::StrCat("Request of ", call->method,
                                                " to ", call->to,
                                                " does not fit its type"));
  }
  stats_.bytes += static_cast<int64_t>(wire.size());
  loop_->Trace(SIM_RPC_SEND, call->from,
               {{"id", call->id},
                {"to", call->to},
                {"method", call->method},
                {"bytes", wire.size()}},
               Fnv1a64(wire));
  return s;
}

bool SimNetwork::WatchCancellation(const std::shared_ptr<Call>& call,
                                   CancellationManager* cancellation) {
  call->cancellation = cancellation;
  call->token = cancellation->get_cancellation_token();
  std::weak_ptr<Call> weak = call;
  call->registered = cancellation->RegisterCallback(call->token, [this, weak] {
    if (auto c = weak.lock()) {
      Complete(c, absl::CancelledError(absl::StrCat("RPC ", c->method, " to ",
                                                    c->to, " was cancelled")));
    }
  });
  if (!call->registered) {
    Complete(call,
             absl::CancelledError(absl::StrCat("RPC ", call->method, " to ",
                                               call->to, " was cancelled")));
  }
  return call->registered;
}

void SimNetwork::WatchDeadline(const std::shared_ptr<Call>& call,
                               int64_t timeout) {
  std::weak_ptr<Call> weak = call;
  call->deadline_timer = loop_->ScheduleAfterLabeled(
      timeout, "rpc deadline", [this, weak, timeout] {
        if (auto c = weak.lock()) {
          c->deadline_timer = 0;  // Firing: nothing to cancel.
          Complete(c, absl::DeadlineExceededError(absl::StrCat(
                          "RPC ", c->method, " to ", c->to,
                          " exceeded its deadline of ", timeout, " ns")));
        }
      });
}

void SimNetwork::Transmit(const std::shared_ptr<Call>& call) {
  const std::string& from = call->from;
  if (LinkCut(from, call->to)) {
    ++stats_.partitioned;
    FailLater(call, options_.connection_timeout_nanos,
              absl::StrCat("Connection from ", from, " to ", call->to,
                           " timed out (", call->method, ")"));
    return;
  }
  if (Chance(drop_per_mille_)) {
    ++stats_.broken;
    const bool reached = random_->Uniform(2) == 0;
    const int64_t detect =
        Latency() +
        static_cast<int64_t>(random_->Uniform(
            static_cast<uint64_t>(options_.connection_timeout_nanos) + 1));
    if (reached) call->answer_lost = true;
    FailLater(call, detect,
              absl::StrCat("Connection from ", from, " to ", call->to,
                           " broke (", call->method, ")"));
    if (!reached) return;
  }
  const int64_t arrival = ArrivalTime(from, call->to);
  loop_->ScheduleAfterLabeled(arrival - loop_->NowNanos(), "rpc deliver",
                              [this, call] { Deliver(call, false); });
  if (Chance(duplicate_per_mille_)) {
    ++stats_.duplicates;
    const int64_t again = ArrivalTime(from, call->to) + Latency();
    loop_->ScheduleAfterLabeled(again - loop_->NowNanos(), "rpc duplicate",
                                [this, call] { Deliver(call, true); });
  }
}

void SimNetwork::Deliver(std::shared_ptr<Call> call, bool duplicate) {
  auto it = handlers_.find(call->to);
  if (it == handlers_.end()) {
    if (!duplicate) {
      ++stats_.refused;
      FailLater(call, Latency(),
                absl::StrCat("Task ", call->to, " is not serving (",
                             call->method, ")"));
    }
    return;
  }
  if (!duplicate) call->delivered = true;
  ++stats_.delivered;
  loop_->Trace(SIM_RPC_DELIVER, call->to,
               {{"id", call->id}, {"copy", duplicate ? "duplicate" : "first"}});
  std::unique_ptr<google::protobuf::Message> unused_request;
  std::unique_ptr<google::protobuf::Message> response;
  NewRequestAndResponse(call->method, &unused_request, &response).IgnoreError();
  std::shared_ptr<google::protobuf::Message> resp(std::move(response));
  const uint64_t epoch = Epoch(call->to);
  it->second->Handle(
      call->method, *call->request, resp.get(),
      [this, call, epoch, duplicate, resp](const absl::Status& status) {
        if (Epoch(call->to) != epoch) return;  // Crashed: nobody answers.
        if (duplicate || call->answer_lost) return;
        std::string wire;
        if (status.ok()) Serialize(*resp, &wire);
        stats_.bytes += static_cast<int64_t>(wire.size());
        if (LinkCut(call->to, call->from)) {
          ++stats_.partitioned;
          FailLater(
              call, options_.connection_timeout_nanos,
              absl::StrCat("Connection from ", call->from, " to ", call->to,
                           " timed out waiting for the answer (", call->method,
                           ")"));
          return;
        }
        const int64_t arrival = ArrivalTime(call->to, call->from);
        loop_->ScheduleAfterLabeled(
            arrival - loop_->NowNanos(), "rpc answer",
            [this, call, status, wire = std::move(wire)] {
              if (call->completed) return;
              absl::Status s = status;
              if (s.ok() && !call->caller_response->ParseFromString(wire)) {
                s = absl::InternalError(
                    absl::StrCat("Could not parse the answer of ", call->method,
                                 " from ", call->to));
              }
              Complete(call, s);
            });
      });
}

void SimNetwork::FailLater(const std::shared_ptr<Call>& call, int64_t delay,
                           const std::string& why) {
  std::weak_ptr<Call> weak = call;
  loop_->ScheduleAfterLabeled(delay, "rpc failure", [this, weak, why] {
    if (auto c = weak.lock()) Complete(c, absl::UnavailableError(why));
  });
}

void SimNetwork::Complete(const std::shared_ptr<Call>& call,
                          absl::Status status) {
  if (call->completed) return;
  call->completed = true;
  calls_.erase(call->id);
  if (call->deadline_timer != 0) loop_->CancelTimer(call->deadline_timer);
  call->deadline_timer = 0;
  if (call->registered) call->cancellation->DeregisterCallback(call->token);
  call->registered = false;
  loop_->Trace(
      SIM_RPC_DONE, call->from,
      {{"id", call->id}, {"status", absl::StatusCodeToString(status.code())}});
  Transport::DoneCallback done = std::move(call->done);
  loop_->ScheduleLabeled("rpc done",
                         [done = std::move(done), status] { done(status); });
}

bool SimNetwork::Serialize(const google::protobuf::Message& message,
                           std::string* wire) {
  // Deterministic: map fields (NodeDef attrs) in key order, so the bytes,
  // and the trace digests over them, are the same in every run. Sized once
  // up front: written in place, never regrown.
  const size_t size = message.ByteSizeLong();
  wire->resize(size);
  google::protobuf::io::ArrayOutputStream stream(wire->data(),
                                                 static_cast<int>(size));
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeWithCachedSizes(&coded);
  coded.Trim();
  return !coded.HadError() && static_cast<size_t>(coded.ByteCount()) == size;
}

}  // namespace stepflow
