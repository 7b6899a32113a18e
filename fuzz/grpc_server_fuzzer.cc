// Fuzzes what a gRPC client can send a server task: the bytes are a
// sequence of calls (fuzz/server_calls.h: method, flags, request bytes) to
// one task's MasterService and WorkerService behind a ServiceMux, exactly
// as GrpcServer serves them. Each request goes through ParseServedCall
// (runtime/distributed/served_call.h), the function GrpcTransport's server
// hands every received call to, and then to the mux's Handle(); only the
// socket and the task lookup are left out.
//
// The task lives in a deterministic simulated Env (sim/env/sim_env.h, a
// fixed seed, one thread): the master reaches its worker through a
// LoopbackTransport on the event loop, with the server binary's timers
// (heartbeats, worker leases, session GC) scaled down so that an input can
// reach them. A fresh server is made for every input, so an input means
// the same run in the fuzzer and in the regression test, and what one
// input leaves behind is freed (leak-checked) before the next.
//
// Checks (a failure prints what broke and aborts):
//   * every call is answered exactly once (a second `done` aborts at once);
//   * every call is answered within kCallBoundNanos of virtual time after
//     it was issued (no wedge), and never by an idle loop with the call
//     still open (no lost answer);
//   * an error status carries a canonical (TensorFlow) code in 1..16; a
//     RunStep/RunGraph answer storing its error in the body has one too;
//   * an OK response serialises and parses back as its own type (what the
//     gRPC server sends);
//   * a request that does not parse is InvalidArgument and an unknown
//     method Unimplemented, with no handler run;
//   * destroying the server (master, then worker) leaves an event loop
//     that drains; no crash, leak or undefined behaviour under ASan/UBSan.
// Inputs whose steps run more than kEventBudget events (a long but live
// computation: a big while loop) are not reported: every step is aborted
// (Worker::AbortAllSteps), after which every call must still be answered.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fuzz/server_calls.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/master.h"
#include "runtime/distributed/served_call.h"
#include "runtime/distributed/service_mux.h"
#include "runtime/distributed/testing/loopback_transport.h"
#include "runtime/distributed/worker.h"
#include "sim/env/sim_env.h"

namespace stepflow {
namespace {

using fuzzing::ServerCall;

constexpr char kTask[] = "/job:worker/replica:0/task:0";
constexpr uint64_t kSeed = 25;
constexpr int kCpus = 2;
// A call must be answered this long (virtual time) after it was issued.
constexpr int64_t kCallBoundNanos = int64_t{600} * 1000000000;
// Events one input may run before it is cut short (not a finding).
constexpr uint64_t kEventBudget = 200000;
// Events the teardown may run before the loop must be idle.
constexpr uint64_t kTeardownBudget = 100000;

const char* const kHandleFields[] = {"session_handle", "graph_handle",
                                     "partial_run_handle"};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "grpc_server_fuzzer: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// STEPFLOW_SERVER_FUZZ_VERBOSE=1 prints every call's answer.
bool Verbose() {
  static const bool verbose = [] {
    const char* v = std::getenv("STEPFLOW_SERVER_FUZZ_VERBOSE");
    return v != nullptr && v[0] == '1';
  }();
  return verbose;
}

bool ValidErrorCode(int code) { return code >= 1 && code <= 16; }

// One call in flight.
struct Pending {
  int index = 0;
  std::string method;
  ServedCall call;
  int answers = 0;
  absl::Status status;
  int64_t deadline = 0;
};

class FuzzServer {
 public:
  FuzzServer() : sim_(kSeed, LoopOptions()), transport_(&sim_.loop) {
    env_ = sim_.env;
    env_.transport = &transport_;
    // GrpcServer's setup (grpc_server.cc), its timers shortened.
    Worker::Options worker_options;
    worker_options.session_lease_nanos = int64_t{60} * 1000000000;
    absl::Status s =
        Worker::Create(&env_, kTask, kCpus, worker_options, &worker_);
    if (!s.ok()) Fail(absl::StrCat("Worker::Create: ", s.ToString()));
    Master::Options master_options;
    master_options.session_gc_nanos = int64_t{100} * 1000000000;
    master_options.task = kTask;
    master_options.health_check_interval_nanos = int64_t{2} * 1000000000;
    master_options.health_check_max_missed = 3;
    master_ = std::make_unique<Master>(&env_, std::vector<std::string>{kTask},
                                       master_options);
    mux_.Add("WorkerService", worker_.get());
    mux_.Add("MasterService", master_.get());
    s = transport_.Serve(kTask, &mux_);
    if (!s.ok()) Fail(absl::StrCat("Serve: ", s.ToString()));
  }

  // Runs the input's calls, then tears the server down.
  void Run(const std::vector<ServerCall>& calls) {
    for (size_t i = 0; i < calls.size() && !out_of_budget_; ++i) {
      const ServerCall& c = calls[i];
      if (c.idle_before) sim_.loop.RunFor(fuzzing::kIdleNanos);
      Pending* p = Issue(static_cast<int>(i), c);
      if (p != nullptr && !c.async) DriveUntilAnswered(p);
    }
    for (auto& p : pending_) {
      if (out_of_budget_) break;
      DriveUntilAnswered(p.get());
    }
    if (out_of_budget_) {
      // A long computation: cancelling its steps must end every call.
      worker_->AbortAllSteps(absl::CancelledError("fuzzer budget"));
      budget_ = sim_.loop.events_run() + kEventBudget;
      out_of_budget_ = false;
      for (auto& p : pending_) DriveUntilAnswered(p.get());
      if (out_of_budget_) {
        Fail("calls still run after every step was aborted");
      }
    }
    TearDown();
  }

 private:
  static SimEventLoop::Options LoopOptions() {
    SimEventLoop::Options o;
    o.max_events = 0;  // Budgets are checked here, with better messages.
    o.max_virtual_nanos = 0;
    return o;
  }

  // Parses the request as the gRPC server does and hands it to the mux
  // from an event (a transport delivers calls to handlers that way).
  // Null if the call was answered at once (a parse error).
  Pending* Issue(int index, const ServerCall& c) {
    auto p = std::make_unique<Pending>();
    p->index = index;
    p->method = c.method;
    google::protobuf::io::ArrayInputStream bytes(
        c.body.data(), static_cast<int>(c.body.size()));
    absl::Status s = ParseServedCall(c.method, &bytes, &p->call);
    if (!s.ok() && Verbose()) {
      std::fprintf(stderr, "  call %d %s -> %s\n", index, c.method.c_str(),
                   s.ToString().c_str());
    }
    if (!s.ok()) {
      const bool known = c.method != fuzzing::kUnknownMethod;
      if (known ? !absl::IsInvalidArgument(s) : !absl::IsUnimplemented(s)) {
        Fail(absl::StrCat("call ", index, " (", c.method, "): parse answered ",
                          s.ToString()));
      }
      return nullptr;
    }
    SubstituteHandles(p->call.request.get());
    p->deadline = sim_.loop.NowNanos() + kCallBoundNanos;
    Pending* raw = p.get();
    pending_.push_back(std::move(p));
    sim_.loop.Schedule([this, raw] {
      mux_.Handle(
          raw->call.method, *raw->call.request, raw->call.response.get(),
          [this, raw](const absl::Status& status) { Answered(raw, status); });
    });
    return raw;
  }

  void Answered(Pending* p, const absl::Status& status) {
    if (Verbose()) {
      std::fprintf(stderr, "  call %d %s -> %s\n", p->index, p->method.c_str(),
                   status.ToString().c_str());
    }
    if (++p->answers > 1) {
      Fail(absl::StrCat("call ", p->index, " (", p->method,
                        ") answered twice: first ", p->status.ToString(),
                        ", then ", status.ToString()));
    }
    p->status = status;
    if (!status.ok()) {
      if (!ValidErrorCode(static_cast<int>(status.code()))) {
        Fail(absl::StrCat("call ", p->index, " (", p->method,
                          ") failed with a non-canonical code ",
                          static_cast<int>(status.code()), ": ",
                          status.ToString()));
      }
      return;
    }
    CheckResponse(p);
    RecordHandles(*p->call.response);
  }

  // What the gRPC server would send must parse back as the same type.
  void CheckResponse(Pending* p) {
    const google::protobuf::Message& resp = *p->call.response;
    std::string wire;
    if (!resp.SerializeToString(&wire)) {
      Fail(absl::StrCat("call ", p->index, " (", p->method,
                        "): the response does not serialise"));
    }
    std::unique_ptr<google::protobuf::Message> back(resp.New());
    if (!back->ParseFromString(wire)) {
      Fail(absl::StrCat("call ", p->index, " (", p->method,
                        "): the response does not parse back"));
    }
    int body_code = 0;
    if (auto* r = dynamic_cast<const RunStepResponse*>(&resp)) {
      body_code = r->status_code();
    } else if (auto* g = dynamic_cast<const RunGraphResponse*>(&resp)) {
      body_code = g->status_code();
    }
    if (body_code != 0 && !ValidErrorCode(body_code)) {
      Fail(absl::StrCat("call ", p->index, " (", p->method,
                        "): the response body stores code ", body_code));
    }
  }

  void RecordHandles(const google::protobuf::Message& m) {
    const google::protobuf::Descriptor* d = m.GetDescriptor();
    const google::protobuf::Reflection* r = m.GetReflection();
    for (const char* name : kHandleFields) {
      const google::protobuf::FieldDescriptor* f = d->FindFieldByName(name);
      if (f == nullptr || f->is_repeated() ||
          f->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
        continue;
      }
      std::string v = r->GetString(m, f);
      if (!v.empty()) handles_[name].push_back(std::move(v));
    }
  }

  void SubstituteHandles(google::protobuf::Message* m) {
    const google::protobuf::Descriptor* d = m->GetDescriptor();
    const google::protobuf::Reflection* r = m->GetReflection();
    for (const char* name : kHandleFields) {
      const google::protobuf::FieldDescriptor* f = d->FindFieldByName(name);
      if (f == nullptr || f->is_repeated() ||
          f->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
        continue;
      }
      const std::string v = r->GetString(*m, f);
      uint32_t n = 0;
      if (v.size() < 2 || v[0] != '@' || v.size() > 6 ||
          !absl::SimpleAtoi(v.substr(1), &n)) {
        continue;
      }
      auto it = handles_.find(name);
      if (it == handles_.end() || it->second.empty()) continue;
      r->SetString(m, f, it->second[n % it->second.size()]);
    }
  }

  // Runs events until `p` is answered. Aborts on a wedge (its deadline
  // passed) or a lost answer (nothing left to run).
  void DriveUntilAnswered(Pending* p) {
    while (p->answers == 0) {
      if (sim_.loop.events_run() >= budget_) {
        out_of_budget_ = true;
        return;
      }
      if (!sim_.loop.Step()) {
        Fail(absl::StrCat("call ", p->index, " (", p->method,
                          ") was never answered: nothing is left to run"));
      }
      if (p->answers == 0 && sim_.loop.NowNanos() > p->deadline) {
        std::string pending;
        for (const std::string& e : sim_.loop.DescribePending()) {
          absl::StrAppend(&pending, "\n  ", e);
        }
        Fail(absl::StrCat("call ", p->index, " (", p->method,
                          ") is not answered after ",
                          kCallBoundNanos / 1000000000,
                          " s of virtual time; pending:", pending));
      }
    }
  }

  // As ~GrpcServer: stop serving, then the master, then the worker. The
  // loop must then drain; closures it destroys unrun are freed too.
  void TearDown() {
    transport_.StopServing(kTask);
    master_.reset();
    worker_.reset();
    uint64_t ran = 0;
    while (sim_.loop.Step()) {
      if (++ran > kTeardownBudget) {
        Fail(
            absl::StrCat("the event loop keeps running after the server "
                         "was destroyed: ",
                         sim_.loop.NumPending(), " events pending"));
      }
    }
    for (const auto& p : pending_) {
      if (p->answers == 0) {
        Fail(absl::StrCat("call ", p->index, " (", p->method,
                          ") was never answered"));
      }
    }
  }

  SimEnv sim_;
  LoopbackTransport transport_;
  Env env_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<Master> master_;
  ServiceMux mux_;
  std::vector<std::unique_ptr<Pending>> pending_;
  std::map<std::string, std::vector<std::string>> handles_;
  bool out_of_budget_ = false;
  uint64_t budget_ = kEventBudget;
};

}  // namespace
}  // namespace stepflow

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<stepflow::fuzzing::ServerCall> calls =
      stepflow::fuzzing::DecodeServerCalls(data, size);
  stepflow::FuzzServer server;
  server.Run(calls);
  return 0;
}
