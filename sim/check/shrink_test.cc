// The shrinker's well-formedness filter, and its refusals. (That real
// failing plans shrink to a handful of ops is planted_bugs_test.)
#include "sim/check/shrink.h"

#include <vector>

#include <gtest/gtest.h>

#include "proto/sim_workload.pb.h"
#include "sim/workloads/workload_runner.h"

namespace stepflow {
namespace {

SimOp* Add(SimWorkloadPlan* plan, SimOp::Kind kind, const std::string& graph,
           const std::string& session = "", const std::string& prun = "") {
  SimOp* op = plan->add_ops();
  op->set_kind(kind);
  op->set_client(1);
  op->set_graph(graph);
  op->set_session(session);
  op->set_prun(prun);
  return op;
}

// 0 NEW_GRAPH g1, 1 IMPORT g1, 2 NEW_SESSION s1, 3 RUN s1, 4 PRUN_SETUP p1,
// 5 PRUN p1, 6 CLOSE s1, 7 RUN s1 (on closed), 8 DELETE_GRAPH g1,
// 9 DELETE_SESSION s1, 10 NEW_GRAPH g2, 11 NEW_SESSION s2 on g2.
SimWorkloadPlan SamplePlan() {
  SimWorkloadPlan plan;
  plan.set_seed(5);
  Add(&plan, SimOp::NEW_GRAPH, "g1");
  Add(&plan, SimOp::IMPORT, "g1");
  Add(&plan, SimOp::NEW_SESSION, "g1", "s1");
  Add(&plan, SimOp::RUN, "g1", "s1");
  Add(&plan, SimOp::PRUN_SETUP, "g1", "s1", "p1");
  Add(&plan, SimOp::PRUN, "g1", "s1", "p1");
  Add(&plan, SimOp::CLOSE_SESSION, "g1", "s1");
  Add(&plan, SimOp::RUN, "g1", "s1")->set_on_closed_session(true);
  Add(&plan, SimOp::DELETE_GRAPH, "g1");
  Add(&plan, SimOp::DELETE_SESSION, "g1", "s1");
  Add(&plan, SimOp::NEW_GRAPH, "g2");
  Add(&plan, SimOp::NEW_SESSION, "g2", "s2");
  return plan;
}

std::vector<int> All(const SimWorkloadPlan& plan) {
  std::vector<int> all;
  for (int i = 0; i < plan.ops_size(); ++i) all.push_back(i);
  return all;
}

TEST(WellFormedOpsTest, KeepsAWellFormedPlan) {
  const SimWorkloadPlan plan = SamplePlan();
  EXPECT_EQ(WellFormedOps(plan, All(plan)), All(plan));
}

TEST(WellFormedOpsTest, DroppingTheGraphDropsEverythingOnIt) {
  const SimWorkloadPlan plan = SamplePlan();
  std::vector<int> keep = All(plan);
  keep.erase(keep.begin());  // NEW_GRAPH g1.
  EXPECT_EQ(WellFormedOps(plan, keep), (std::vector<int>{10, 11}));
}

TEST(WellFormedOpsTest, DroppingTheSessionDropsItsRunsAndPartialRuns) {
  const SimWorkloadPlan plan = SamplePlan();
  EXPECT_EQ(WellFormedOps(plan, {0, 1, 3, 4, 5, 6, 7, 8, 9}),
            (std::vector<int>{0, 1, 8}));
}

TEST(WellFormedOpsTest, PartialRunNeedsItsSetup) {
  const SimWorkloadPlan plan = SamplePlan();
  EXPECT_EQ(WellFormedOps(plan, {0, 2, 5}), (std::vector<int>{0, 2}));
  EXPECT_EQ(WellFormedOps(plan, {0, 2, 4, 5}), (std::vector<int>{0, 2, 4, 5}));
}

TEST(WellFormedOpsTest, RunOnClosedSessionNeedsTheClose) {
  const SimWorkloadPlan plan = SamplePlan();
  EXPECT_EQ(WellFormedOps(plan, {0, 2, 7}), (std::vector<int>{0, 2}));
  EXPECT_EQ(WellFormedOps(plan, {0, 2, 6, 7}), (std::vector<int>{0, 2, 6, 7}));
}

TEST(WellFormedOpsTest, NothingHappensToDeletedObjects) {
  SimWorkloadPlan plan = SamplePlan();
  // An import and a new session after TF_DeleteGraph, a run after
  // TF_DeleteSession.
  Add(&plan, SimOp::IMPORT, "g1");             // 12
  Add(&plan, SimOp::NEW_SESSION, "g1", "s3");  // 13
  Add(&plan, SimOp::RUN, "g1", "s1");          // 14
  Add(&plan, SimOp::RUN, "g2", "s2");          // 15
  EXPECT_EQ(WellFormedOps(plan, All(plan)),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15}));
  // Out-of-range indices are ignored.
  EXPECT_EQ(WellFormedOps(plan, {-1, 0, 99}), (std::vector<int>{0}));
}

TEST(FailureSignatureTest, IgnoresWhereAndHowMany) {
  EXPECT_EQ(FailureSignature({"refcount",
                              "op #3 (client 1: TF_DeleteGraph g0): 2 live "
                              "graphs, model says 3"}),
            "refcount: op # : # live graphs, model says #");
  EXPECT_EQ(FailureSignature({"refcount",
                              "op #19 (client 2: TF_SessionRun s1 fetch{a} "
                              "(train)): 1 live graphs, model says 12"}),
            "refcount: op # : # live graphs, model says #");
  // Same invariant, different shapes.
  const std::string deadlock =
      FailureSignature({"liveness",
                        "SimEventLoop failure: deadlock: nothing is left to "
                        "run\n  virtual time: 5"});
  EXPECT_EQ(deadlock, "liveness: SimEventLoop failure: deadlock");
  EXPECT_NE(deadlock,
            FailureSignature({"liveness",
                              "op #2 could not run: INVALID_ARGUMENT: endpoint "
                              "'n' names no node of graph g0"}));
  EXPECT_NE(FailureSignature({"values", "x"}),
            FailureSignature({"leaks", "x"}));
}

TEST(ShrinkPlanTest, RefusesWhatItCannotShrink) {
  ShrinkResult result;
  SimRunSpec local;
  local.workload = kLocalWorkload;
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkPlan(local, "liveness", ShrinkOptions(), &result)));
  SimRunSpec no_plan;
  no_plan.workload = kMultiClientWorkload;
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkPlan(no_plan, "liveness", ShrinkOptions(), &result)));
  SimRunSpec garbage = no_plan;
  garbage.plan = "\xff\xff\xff";
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkPlan(garbage, "liveness", ShrinkOptions(), &result)));
}

}  // namespace
}  // namespace stepflow
