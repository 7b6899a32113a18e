// Replaying recorded runs (recorded_replay.h) built by hand: a two-task
// graph whose answers are known (2 + 3, 2 - 3), so the recorded outcomes
// come from that arithmetic, not from a run of the code under test.
#include "sim/workloads/recorded_replay.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/master.pb.h"
#include "runtime/distributed/call_outcome.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "sim/check/recorded_shrink.h"

namespace stepflow {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";
constexpr int64_t kMs = 1000 * 1000;

void AddConst(GraphDef* g, const std::string& name, float value,
              const std::string& task) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  n->set_device(absl::StrCat(task, "/device:CPU:0"));
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* v = (*n->mutable_attr())["value"].mutable_tensor();
  v->set_dtype(DT_FLOAT);
  v->mutable_tensor_shape();
  v->add_float_val(value);
}

void AddBinary(GraphDef* g, const std::string& name, const std::string& op,
               const std::string& task) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(absl::StrCat(task, "/device:CPU:0"));
  n->add_input("a");
  n->add_input("b");
  (*n->mutable_attr())["T"].set_type(DT_FLOAT);
}

// a = 2 on task 0, b = 3 on task 1; sum = a + b on task 0, diff = a - b on
// task 1: both need a transfer between the tasks.
GraphDef TwoTaskGraph() {
  GraphDef g;
  AddConst(&g, "a", 2, kTask0);
  AddConst(&g, "b", 3, kTask1);
  AddBinary(&g, "sum", "AddV2", kTask0);
  AddBinary(&g, "diff", "Sub", kTask1);
  return g;
}

// The outcome of a RunStep fetching `name` = `value`.
std::string Fetched(const std::string& name, float value) {
  RunStepResponse r;
  NamedTensorProto* t = r.add_tensor();
  t->set_name(name);
  TensorToProto(Tensor::Scalar<float>(value), t->mutable_tensor());
  return DescribeCallOutcome("MasterService/RunStep", absl::OkStatus(), r);
}

class RunBuilder {
 public:
  RunBuilder() {
    run_.tasks = {kTask0, kTask1};
    run_.cpus = {{kTask0, 1}, {kTask1, 1}};
    run_.master_task = kTask0;
  }

  // A session (recorded handle `handle`) created at `at` ms.
  void Create(const std::string& handle, int64_t at) {
    CreateSessionRequest req;
    *req.mutable_graph_def() = TwoTaskGraph();
    CreateSessionResponse resp;
    Add("MasterService/CreateSession", req, at,
        DescribeCallOutcome("MasterService/CreateSession", absl::OkStatus(),
                            resp),
        handle);
  }
  void Step(const std::string& handle, const std::string& fetch, float value,
            int64_t at) {
    RunStepRequest req;
    req.set_session_handle(handle);
    req.add_fetch(fetch);
    req.set_request_id(++request_id_);
    Add("MasterService/RunStep", req, at, Fetched(fetch, value), "");
  }
  void Close(const std::string& handle, int64_t at) {
    CloseSessionRequest req;
    req.set_session_handle(handle);
    Add("MasterService/CloseSession", req, at, "code=OK", "");
  }
  void Fault(RecordedFault::Kind kind, int64_t at) {
    RecordedFault f;
    f.kind = kind;
    f.task = kTask1;
    f.at_nanos = at * kMs;
    run_.faults.push_back(f);
  }
  RecordedRun& run() { return run_; }

 private:
  void Add(const std::string& method, const google::protobuf::Message& req,
           int64_t at, const std::string& outcome, const std::string& handle) {
    RecordedCall c;
    c.task = kTask0;
    c.method = method;
    c.start_nanos = at * kMs;
    c.end_nanos = at * kMs + kMs / 2;
    c.request = req.SerializeAsString();
    c.outcome = outcome;
    c.handle = handle;
    run_.calls.push_back(c);
  }

  RecordedRun run_;
  int64_t request_id_ = 0;
};

// Two sessions with task 1 killed and restarted between them.
RecordedRun TwoSessionsAcrossARestart() {
  RunBuilder b;
  b.Create("recorded-1", 0);
  b.Step("recorded-1", "sum", 5, 10);
  b.Step("recorded-1", "diff", -1, 20);
  b.Close("recorded-1", 30);
  b.Fault(RecordedFault::kCrash, 40);
  b.Fault(RecordedFault::kRestart, 50);
  b.Create("recorded-2", 60);
  b.Step("recorded-2", "diff", -1, 70);
  b.Step("recorded-2", "sum", 5, 80);
  b.Close("recorded-2", 90);
  return b.run();
}

TEST(RecordedReplayTest, ReplaysIdenticallyAndDeterministically) {
  const RecordedRun run = TwoSessionsAcrossARestart();
  RecordedReplayResult first, second;
  ASSERT_TRUE(ReplayRecordedRun(run, {}, &first).ok());
  EXPECT_EQ(first.divergence_index, -1) << DescribeRecordedReplay(run, first);
  EXPECT_EQ(first.faults_applied, 2);
  EXPECT_EQ(first.client_calls, 8);
  // No worker side was recorded: only the client calls are compared.
  EXPECT_EQ(first.recorded.size(), 8u);
  // Nothing depends on real time: the same run, the same hash.
  ASSERT_TRUE(ReplayRecordedRun(run, {}, &second).ok());
  EXPECT_EQ(first.hash, second.hash);
  EXPECT_EQ(first.replayed, second.replayed);
  EXPECT_NE(DescribeRecordedReplay(run, first).find("replays identically"),
            std::string::npos);
}

TEST(RecordedReplayTest, ADifferentAnswerIsTheDeparture) {
  RecordedRun run = TwoSessionsAcrossARestart();
  run.calls[5].outcome = Fetched("diff", 1);  // 3 - 2: the wrong way round.
  RecordedReplayResult r;
  ASSERT_TRUE(ReplayRecordedRun(run, {}, &r).ok());
  EXPECT_EQ(r.divergence_index, 5);
  EXPECT_EQ(r.replayed[5],
            absl::StrCat("MasterService/RunStep ", Fetched("diff", -1)));
  EXPECT_NE(DescribeRecordedReplay(run, r).find("DEPARTS at event 5"),
            std::string::npos);
}

TEST(RecordedReplayTest, WithoutItsSessionAStepFails) {
  // The handles are translated: a step naming a session the recording
  // never created reaches the master as it is, and fails.
  RecordedRun run = TwoSessionsAcrossARestart();
  RunStepRequest req;
  req.ParseFromString(run.calls[1].request);
  req.set_session_handle("never-created");
  run.calls[1].request = req.SerializeAsString();
  RecordedReplayResult r;
  ASSERT_TRUE(ReplayRecordedRun(run, {}, &r).ok());
  EXPECT_EQ(r.divergence_index, 1);
  EXPECT_EQ(r.replayed[1], "MasterService/RunStep code=ABORTED");
}

TEST(RecordedReplayTest, APlantedBugDepartsAndShrinks) {
  const RecordedRun run = TwoSessionsAcrossARestart();
  RecordedReplayOptions o;
  o.planted_bug = PlantedBug::kSwappedSub;
  RecordedReplayResult r;
  ASSERT_TRUE(ReplayRecordedRun(run, o, &r).ok());
  EXPECT_EQ(r.divergence_index, 2);  // The first diff.
  RecordedShrinkResult shrunk;
  ASSERT_TRUE(
      ShrinkRecordedRun(run, PlantedBug::kSwappedSub, 200, &shrunk).ok());
  EXPECT_EQ(shrunk.original_calls, 8);
  // A session and one step fetching diff.
  ASSERT_EQ(shrunk.run.calls.size(), 2u);
  EXPECT_EQ(shrunk.run.calls[0].method, "MasterService/CreateSession");
  EXPECT_EQ(shrunk.run.calls[1].outcome, Fetched("diff", -1));
  EXPECT_EQ(shrunk.departure_index, 1);
  EXPECT_EQ(shrunk.with_bug,
            absl::StrCat("MasterService/RunStep ", Fetched("diff", 1)));
  // The reduced run replays identically without the bug.
  ASSERT_TRUE(ReplayRecordedRun(shrunk.run, {}, &r).ok());
  EXPECT_EQ(r.divergence_index, -1);
}

}  // namespace
}  // namespace stepflow
