// Recordings of served calls (runtime/distributed/call_recorder.h) read back
// as a recorded run (recorded_run.h): the round trip, the timeline of
// several files, the faults a restart implies, a cut-off last record, and
// merged files; and call outcomes (call_outcome.h).
#include "sim/workloads/recorded_run.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/master.pb.h"
#include "proto/worker.pb.h"
#include "runtime/distributed/call_outcome.h"
#include "runtime/distributed/call_recorder.h"
#include "runtime/framework/fnv64.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "sim/trace/trace.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

class FakeClock : public Clock {
 public:
  int64_t NowNanos() const override { return now; }
  int64_t now = 0;
};

// Answers every call at once: a session handle, one fetched float.
class FakeHandler : public RpcHandler {
 public:
  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message* response, DoneCallback done) override {
    if (method == "MasterService/CreateSession") {
      static_cast<CreateSessionResponse*>(response)->set_session_handle("h1");
    } else if (method == "MasterService/RunStep") {
      NamedTensorProto* t =
          static_cast<RunStepResponse*>(response)->add_tensor();
      t->set_name("w");
      TensorToProto(Tensor::Scalar<float>(value), t->mutable_tensor());
    }
    done(status);
  }
  float value = 0.5f;
  absl::Status status;
};

// Serves `method` through `recorder` with the clock at `at` (the fake
// answers at once: the call starts and ends then).
void Serve(CallRecorder* recorder, FakeClock* clock, const std::string& method,
           const google::protobuf::Message& request, int64_t at) {
  std::unique_ptr<google::protobuf::Message> response;
  if (method == "MasterService/CreateSession") {
    response = std::make_unique<CreateSessionResponse>();
  } else if (method == "MasterService/RunStep") {
    response = std::make_unique<RunStepResponse>();
  } else {
    response = std::make_unique<RunGraphResponse>();
  }
  clock->now = at;
  recorder->Handle(method, request, response.get(), [](const absl::Status&) {});
}

struct Recording {
  FakeClock clock;
  FakeHandler handler;
  std::unique_ptr<CallRecorder> recorder;
};

// A recorder into `name` for `task`, wall start `start_unix`.
std::unique_ptr<Recording> Record(const std::string& name,
                                  const std::string& task, int64_t start_unix,
                                  int cpus) {
  auto r = std::make_unique<Recording>();
  CallRecorder::Options o;
  o.path = test::TestTmpPath(name);
  o.task = task;
  o.clock = &r->clock;
  o.params = {{"cluster", absl::StrCat(kTask0, ",", kTask1)},
              {"cpus", absl::StrCat(cpus)},
              {"health_check_interval_ns", "7"},
              {"start_unix_ns", absl::StrCat(start_unix)}};
  EXPECT_TRUE(CallRecorder::Create(&r->handler, o, &r->recorder).ok());
  return r;
}

CreateSessionRequest CreateRequest() {
  CreateSessionRequest req;
  req.mutable_graph_def()->add_node()->set_name("w");
  return req;
}

RunStepRequest StepRequest() {
  RunStepRequest req;
  req.set_session_handle("h1");
  req.add_fetch("w");
  return req;
}

TEST(RecordedRunTest, RecordingsMakeOneTimelineWithTheRestartAsFaults) {
  auto t0 = Record("t0.rec", kTask0, 1000, 2);
  auto t1a = Record("t1a.rec", kTask1, 1000, 1);
  auto t1b = Record("t1b.rec", kTask1, 1500, 1);
  Serve(t0->recorder.get(), &t0->clock, "MasterService/CreateSession",
        CreateRequest(), 10);
  Serve(t1a->recorder.get(), &t1a->clock, "WorkerService/RegisterGraph",
        RegisterGraphRequest(), 15);
  Serve(t0->recorder.get(), &t0->clock, "MasterService/RunStep", StepRequest(),
        30);
  RunGraphRequest run_graph;
  run_graph.set_step_id(42);
  Serve(t1a->recorder.get(), &t1a->clock, "WorkerService/RunGraph", run_graph,
        31);
  EXPECT_EQ(t0->recorder->calls_recorded(), 2);
  EXPECT_TRUE(t0->recorder->status().ok());
  // The second incarnation answered nothing: only its start counts.

  // A server killed mid-write leaves a cut-off record: dropped.
  {
    std::ofstream cut(test::TestTmpPath("t1a.rec"),
                      std::ios::binary | std::ios::app);
    cut << '\x40' << "partial";
  }

  RecordedRun run;
  ASSERT_TRUE(LoadRecordedRun(
                  {test::TestTmpPath("t0.rec"), test::TestTmpPath("t1a.rec"),
                   test::TestTmpPath("t1b.rec")},
                  &run)
                  .ok());
  EXPECT_EQ(run.files, 3);
  EXPECT_EQ(run.tasks, (std::vector<std::string>{kTask0, kTask1}));
  EXPECT_EQ(run.cpus[kTask0], 2);
  EXPECT_EQ(run.cpus[kTask1], 1);
  EXPECT_EQ(run.master_task, kTask0);
  EXPECT_EQ(run.options["health_check_interval_ns"], 7);
  ASSERT_EQ(run.calls.size(), 2u);
  EXPECT_EQ(run.calls[0].method, "MasterService/CreateSession");
  EXPECT_EQ(run.calls[0].start_nanos, 10);
  EXPECT_EQ(run.calls[0].handle, "h1");
  EXPECT_EQ(run.calls[0].outcome, "code=OK graph_version=0");
  EXPECT_EQ(run.calls[0].request, CreateRequest().SerializeAsString());
  EXPECT_EQ(run.calls[1].method, "MasterService/RunStep");
  EXPECT_EQ(run.calls[1].start_nanos, 30);
  EXPECT_EQ(run.calls[1].request, StepRequest().SerializeAsString());
  EXPECT_EQ(run.calls[1].outcome.rfind("code=OK tensors=1 values=", 0), 0u)
      << run.calls[1].outcome;
  ASSERT_EQ(run.worker_calls.size(), 2u);
  EXPECT_EQ(run.worker_calls[0].method, "WorkerService/RegisterGraph");
  EXPECT_EQ(run.worker_calls[0].task, kTask1);
  // RunGraph keeps its digest only; RegisterGraph its request.
  EXPECT_EQ(run.worker_calls[1].request, "");
  EXPECT_EQ(run.worker_calls[1].request_digest,
            Fnv1a64(run_graph.SerializeAsString()));
  // Task 1's first incarnation last answered at 31 and nothing was in
  // flight: it died at 32; the next one started at 500.
  ASSERT_EQ(run.faults.size(), 2u);
  EXPECT_EQ(run.faults[0].kind, RecordedFault::kCrash);
  EXPECT_EQ(run.faults[0].task, kTask1);
  EXPECT_EQ(run.faults[0].at_nanos, 32);
  EXPECT_EQ(run.faults[1].kind, RecordedFault::kRestart);
  EXPECT_EQ(run.faults[1].at_nanos, 500);

  // A merged file holds the same run.
  const std::string merged = test::TestTmpPath("merged.rec");
  ASSERT_TRUE(WriteRecordedRun(merged, run).ok());
  RecordedRun again;
  ASSERT_TRUE(LoadRecordedRun({merged}, &again).ok());
  EXPECT_EQ(again.tasks, run.tasks);
  EXPECT_EQ(again.cpus, run.cpus);
  EXPECT_EQ(again.master_task, run.master_task);
  EXPECT_EQ(again.options, run.options);
  ASSERT_EQ(again.calls.size(), run.calls.size());
  for (size_t i = 0; i < run.calls.size(); ++i) {
    EXPECT_EQ(again.calls[i].Describe(), run.calls[i].Describe());
    EXPECT_EQ(again.calls[i].request, run.calls[i].request);
    EXPECT_EQ(again.calls[i].start_nanos, run.calls[i].start_nanos);
  }
  ASSERT_EQ(again.faults.size(), 2u);
  EXPECT_EQ(again.faults[0].Describe(), run.faults[0].Describe());
  EXPECT_EQ(again.faults[1].at_nanos, 500);
  EXPECT_EQ(again.worker_calls.size(), run.worker_calls.size());
}

TEST(RecordedRunTest, ARecordingIsASimulationTraceWithoutFooter) {
  auto t0 = Record("plain.rec", kTask0, 1, 1);
  Serve(t0->recorder.get(), &t0->clock, "MasterService/CreateSession",
        CreateRequest(), 5);
  TraceHeader header;
  std::vector<TraceEvent> events;
  uint64_t hash = 0;
  ASSERT_TRUE(TraceReader::ReadAll(test::TestTmpPath("plain.rec"), &header,
                                   &events, &hash)
                  .ok());
  EXPECT_TRUE(IsRecordedHeader(header));
  EXPECT_EQ(header.Param("task"), kTask0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, SIM_RPC_DONE);
  EXPECT_EQ(events[0].Field("method"), "MasterService/CreateSession");
  EXPECT_EQ(events[0].payload, CreateRequest().SerializeAsString());
}

TEST(RecordedRunTest, CallsOnTwoMastersAreRefused) {
  auto a = Record("m0.rec", kTask0, 1, 1);
  auto b = Record("m1.rec", kTask1, 1, 1);
  Serve(a->recorder.get(), &a->clock, "MasterService/CreateSession",
        CreateRequest(), 1);
  Serve(b->recorder.get(), &b->clock, "MasterService/CreateSession",
        CreateRequest(), 2);
  RecordedRun run;
  EXPECT_TRUE(absl::IsInvalidArgument(LoadRecordedRun(
      {test::TestTmpPath("m0.rec"), test::TestTmpPath("m1.rec")}, &run)));
}

TEST(RecordedRunTest, RequestHandlesAreVisitedAndTranslated) {
  RunStepRequest step;
  step.set_session_handle("s1");
  step.set_partial_run_handle("p1");
  std::vector<std::string> seen;
  ForEachRequestHandle(&step, [&seen](std::string* h) {
    seen.push_back(*h);
    *h += "-sim";
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"s1", "p1"}));
  EXPECT_EQ(step.session_handle(), "s1-sim");
  EXPECT_EQ(step.partial_run_handle(), "p1-sim");

  RunCallableRequest callable;
  callable.set_session_handle("s1");
  callable.set_handle(7);
  seen.clear();
  ForEachRequestHandle(&callable, [&seen](std::string* h) {
    seen.push_back(*h);
    if (*h == "7") *h = "9";
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"s1", "7"}));
  EXPECT_EQ(callable.handle(), 9);

  // CreateSession names none.
  CreateSessionRequest create = CreateRequest();
  seen.clear();
  ForEachRequestHandle(&create,
                       [&seen](std::string* h) { seen.push_back(*h); });
  EXPECT_TRUE(seen.empty());
}

TEST(CallOutcomeTest, ValuesNotTheirEncodingDecide) {
  RunStepResponse typed, packed, other;
  NamedTensorProto* t = typed.add_tensor();
  t->set_name("w");
  t->mutable_tensor()->set_dtype(DT_FLOAT);
  t->mutable_tensor()->add_float_val(1.5f);
  NamedTensorProto* p = packed.add_tensor();
  p->set_name("w");
  p->mutable_tensor()->set_dtype(DT_FLOAT);
  const float v = 1.5f;
  p->mutable_tensor()->set_tensor_content(
      std::string(reinterpret_cast<const char*>(&v), sizeof(v)));
  NamedTensorProto* o = other.add_tensor();
  o->set_name("w");
  TensorToProto(Tensor::Scalar<float>(2.5f), o->mutable_tensor());
  const std::string m = "MasterService/RunStep";
  EXPECT_EQ(DescribeCallOutcome(m, absl::OkStatus(), typed),
            DescribeCallOutcome(m, absl::OkStatus(), packed));
  EXPECT_NE(DescribeCallOutcome(m, absl::OkStatus(), typed),
            DescribeCallOutcome(m, absl::OkStatus(), other));
  EXPECT_EQ(DescribeCallOutcome(m, absl::AbortedError("x"), typed),
            "code=ABORTED");
  CreateSessionResponse created;
  created.set_session_handle("abc");
  EXPECT_EQ(CallResultHandle("MasterService/CreateSession", created), "abc");
  EXPECT_EQ(
      CallResultHandle("MasterService/CloseSession", CloseSessionResponse()),
      "");
}

}  // namespace
}  // namespace stepflow
