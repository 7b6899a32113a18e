// Planted bugs (runtime/framework/planted_bug.h) against the simulator:
// each is caught within 50 seeds of the multi-client workload by the invariant
// it breaks, the failing seed is clean without the bug, its trace replays to
// the same failure, and the shrinker reduces its plan to a handful of ops
// that still fail the same way.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/sim_workload.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/common/intra_process_rendezvous.h"
#include "runtime/framework/planted_bug.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/tensor.h"
#include "sim/check/shrink.h"
#include "sim/trace/replay.h"
#include "sim/workloads/multi_client_workload.h"
#include "sim/workloads/workload_runner.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpPath;

constexpr int kMaxSeeds = 50;
constexpr int kMaxShrunkOps = 6;

// The first failure of one of `invariants`, or "".
std::string Caught(const SimRunResult& r,
                   const std::set<std::string>& invariants) {
  for (const SimInvariantFailure& f : r.failures) {
    if (invariants.count(f.invariant) > 0) return f.invariant;
  }
  return "";
}

struct Case {
  PlantedBug bug;
  std::set<std::string> invariants;  // Any of these catches it.
};

class PlantedBugTest : public ::testing::TestWithParam<Case> {};

TEST_P(PlantedBugTest, CaughtReplayedAndShrunk) {
  const Case& c = GetParam();
  SimRunSpec spec;
  spec.workload = kMultiClientWorkload;
  spec.planted_bug = c.bug;

  // 1. Caught within kMaxSeeds seeds.
  SimRunResult failing;
  std::string invariant;
  for (uint64_t seed = 1; seed <= kMaxSeeds && invariant.empty(); ++seed) {
    spec.seed = seed;
    ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &failing).ok());
    invariant = Caught(failing, c.invariants);
  }
  ASSERT_FALSE(invariant.empty())
      << PlantedBugName(c.bug) << " was not caught in " << kMaxSeeds
      << " seeds";
  SCOPED_TRACE(absl::StrCat(PlantedBugName(c.bug), " caught by seed ",
                            spec.seed, " as ", invariant));
  EXPECT_EQ(ActivePlantedBug(), PlantedBug::kNone);

  // 2. The same seed without the bug does not fail that invariant.
  SimRunSpec clean_spec = spec;
  clean_spec.planted_bug = PlantedBug::kNone;
  SimRunResult clean;
  ASSERT_TRUE(RunSimulation(clean_spec, SimRunConfig(), &clean).ok());
  EXPECT_EQ(Caught(clean, c.invariants), "");

  // 3. Its trace replays event for event to the same failures.
  const std::string path = TestTmpPath(
      absl::StrCat(PlantedBugName(c.bug), "_", spec.seed, ".trace"));
  SimRunConfig config;
  config.trace_path = path;
  SimRunResult recorded;
  ASSERT_TRUE(RunSimulation(spec, config, &recorded).ok());
  EXPECT_EQ(recorded.trace_hash, failing.trace_hash);
  ReplayReport report;
  ASSERT_TRUE(Replay(path, &report).ok());
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);
  EXPECT_EQ(report.spec.planted_bug, c.bug);
  EXPECT_EQ(report.result.trace_hash, failing.trace_hash);
  EXPECT_EQ(FailedInvariants(report.result.failures),
            FailedInvariants(failing.failures));

  // 4. The plan shrinks to a handful of ops that still fail the same way.
  SimRunSpec with_plan = spec;
  with_plan.plan = failing.plan;
  ShrinkResult shrunk;
  ASSERT_TRUE(ShrinkPlan(with_plan, invariant, ShrinkOptions(), &shrunk).ok());
  EXPECT_LE(shrunk.plan.ops_size(), kMaxShrunkOps) << DescribePlan(shrunk.plan);
  EXPECT_LT(shrunk.plan.ops_size(), shrunk.original_ops);
  if (c.bug == PlantedBug::kDropRecv) {
    // The failing run's fetches/nodes were cut down too, not only its ops.
    EXPECT_GT(shrunk.simplifications, 0);
  }
  SimRunSpec small = spec;
  small.plan = shrunk.plan.SerializeAsString();
  SimRunResult again;
  ASSERT_TRUE(RunSimulation(small, SimRunConfig(), &again).ok());
  EXPECT_EQ(Caught(again, {invariant}), invariant);
  std::printf(
      "%s: seed %llu fails [%s]; shrunk %d -> %d ops (+%d simplifications) in "
      "%d runs:\n%s",
      PlantedBugName(c.bug), static_cast<unsigned long long>(spec.seed),
      invariant.c_str(), shrunk.original_ops, shrunk.plan.ops_size(),
      shrunk.simplifications, shrunk.runs, DescribePlan(shrunk.plan).c_str());

  // ...and the saved shrunk plan replays to it.
  const std::string plan_path =
      TestTmpPath(absl::StrCat(PlantedBugName(c.bug), "_", spec.seed, ".plan"));
  ASSERT_TRUE(WriteSpecFile(plan_path, small, small.plan).ok());
  ASSERT_TRUE(Replay(plan_path, &report).ok());
  EXPECT_EQ(Caught(report.result, {invariant}), invariant);
}

INSTANTIATE_TEST_SUITE_P(
    Bugs, PlantedBugTest,
    ::testing::Values(Case{PlantedBug::kDropRecv, {"sendrecv", "liveness"}},
                      Case{PlantedBug::kEarlyGraphFree, {"refcount"}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(PlantedBugName(info.param.bug));
    });

TEST(PlantedBugLocalTest, DropRecvIsCaughtByTheLocalWorkload) {
  SimRunSpec spec;
  spec.workload = kLocalWorkload;
  spec.options = {{"steps", "4"}};
  spec.planted_bug = PlantedBug::kDropRecv;
  SimRunResult r;
  ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &r).ok());
  EXPECT_EQ(FailedInvariants(r.failures), std::vector<std::string>{"liveness"});
  spec.planted_bug = PlantedBug::kNone;
  ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &r).ok());
  EXPECT_TRUE(r.failures.empty());
}

// The runtime halves of the bugs, directly.
TEST(PlantedBugHooksTest, DropRecvDropsTheFirstSendOfEachRendezvous) {
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(Rendezvous::ParseKey(
                  Rendezvous::CreateKey(
                      "/job:localhost/replica:0/task:0/device:CPU:0", 1,
                      "/job:localhost/replica:0/task:0/device:CPU:1",
                      "edge_1_x", FrameAndIter()),
                  &key)
                  .ok());
  for (bool planted : {false, true}) {
    ScopedPlantedBug bug(planted ? PlantedBug::kDropRecv : PlantedBug::kNone);
    auto* rendezvous = new IntraProcessRendezvous();
    int received = 0;
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(
          rendezvous
              ->Send(key, Rendezvous::Args(), Tensor::Scalar<float>(i), false)
              .ok());
    }
    for (int i = 0; i < 2; ++i) {
      rendezvous->RecvAsync(key, Rendezvous::Args(),
                            [&](const absl::Status& s, const Rendezvous::Args&,
                                const Rendezvous::Args&, const Tensor&,
                                bool) { received += s.ok() ? 1 : 0; });
    }
    // With the bug one Send was lost: one Recv is still waiting.
    EXPECT_EQ(received, planted ? 1 : 2);
    EXPECT_EQ(rendezvous->NumPendingForTest(), planted ? 1u : 0u);
    rendezvous->StartAbort(absl::CancelledError("done"));
    rendezvous->Unref();
  }
}

TEST(PlantedBugHooksTest, EarlyGraphFreeCountsTheGraphFreedTooEarly) {
  for (bool planted : {false, true}) {
    ScopedPlantedBug bug(planted ? PlantedBug::kEarlyGraphFree
                                 : PlantedBug::kNone);
    const int64_t live = TF_TestOnlyLiveGraphCount();
    TF_Status* status = TF_NewStatus();
    TF_Graph* graph = TF_NewGraph();
    TF_SessionOptions* opts = TF_NewSessionOptions();
    TF_Session* session = TF_NewSession(graph, opts, status);
    ASSERT_EQ(TF_GetCode(status), TF_OK);
    EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live + 1);
    TF_DeleteGraph(graph);  // A session still holds it.
    EXPECT_EQ(TF_TestOnlyLiveGraphCount(), planted ? live : live + 1);
    TF_DeleteSession(session, status);
    EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live);  // Counted exactly once.
    TF_DeleteSessionOptions(opts);
    TF_DeleteStatus(status);
  }
}

TEST(PlantedBugNamesTest, RoundTrip) {
  for (PlantedBug bug : {PlantedBug::kNone, PlantedBug::kDropRecv,
                         PlantedBug::kEarlyGraphFree}) {
    PlantedBug back = PlantedBug::kDropRecv;
    ASSERT_TRUE(ParsePlantedBug(PlantedBugName(bug), &back));
    EXPECT_EQ(back, bug);
  }
  PlantedBug b;
  EXPECT_FALSE(ParsePlantedBug("", &b));
  EXPECT_FALSE(ParsePlantedBug("drop", &b));
  EXPECT_FALSE(ParsePlantedBug(nullptr, &b));
  {
    ScopedPlantedBug outer(PlantedBug::kDropRecv);
    EXPECT_TRUE(PlantedBugActive(PlantedBug::kDropRecv));
    {
      ScopedPlantedBug inner(PlantedBug::kEarlyGraphFree);
      EXPECT_FALSE(PlantedBugActive(PlantedBug::kDropRecv));
    }
    EXPECT_TRUE(PlantedBugActive(PlantedBug::kDropRecv));
  }
  EXPECT_EQ(ActivePlantedBug(), PlantedBug::kNone);
}

}  // namespace
}  // namespace stepflow
