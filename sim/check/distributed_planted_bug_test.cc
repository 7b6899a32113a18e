// A planted distributed bug (the master skips CleanupGraph) against the
// distributed simulation: caught within 1,000 seeds, clean without the
// bug, replayed event for event from its trace, and shrunk to a small
// reproducer that still fails the same way.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/planted_bug.h"
#include "sim/check/distributed_shrink.h"
#include "sim/trace/replay.h"
#include "sim/workloads/distributed_workload.h"
#include "sim/workloads/workload_runner.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpPath;

constexpr int kMaxSeeds = 1000;

bool FailsWith(const SimRunResult& r, const std::string& invariant) {
  for (const SimInvariantFailure& f : r.failures) {
    if (f.invariant == invariant) return true;
  }
  return false;
}

TEST(DistributedPlantedBugTest, SkippedCleanupIsCaughtReplayedAndShrunk) {
  SimRunSpec spec;
  spec.workload = kDistributedWorkload;
  spec.planted_bug = PlantedBug::kSkipCleanupGraph;
  SimRunResult failing;
  bool caught = false;
  for (uint64_t seed = 1; seed <= kMaxSeeds && !caught; ++seed) {
    spec.seed = seed;
    ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &failing).ok());
    caught = FailsWith(failing, "leaks");
  }
  ASSERT_TRUE(caught) << "not caught in " << kMaxSeeds << " seeds";
  SCOPED_TRACE(absl::StrCat("seed ", spec.seed));

  // Without the bug the same seed is clean.
  SimRunSpec clean_spec = spec;
  clean_spec.planted_bug = PlantedBug::kNone;
  SimRunResult clean;
  ASSERT_TRUE(RunSimulation(clean_spec, SimRunConfig(), &clean).ok());
  EXPECT_TRUE(clean.failures.empty());

  // The trace replays to the same events and failures.
  const std::string path =
      TestTmpPath(absl::StrCat("skip_cleanup_", spec.seed, ".trace"));
  SimRunConfig config;
  config.trace_path = path;
  SimRunResult recorded;
  ASSERT_TRUE(RunSimulation(spec, config, &recorded).ok());
  EXPECT_EQ(recorded.trace_hash, failing.trace_hash);
  ReplayReport report;
  ASSERT_TRUE(Replay(path, &report).ok());
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);
  EXPECT_EQ(report.spec.planted_bug, PlantedBug::kSkipCleanupGraph);
  EXPECT_EQ(FailedInvariants(report.result.failures),
            FailedInvariants(failing.failures));

  // Shrunk: one client, at most two workers, a step or two, no faults.
  DistributedShrinkResult shrunk;
  ASSERT_TRUE(ShrinkDistributedRun(spec, "leaks", 200, &shrunk).ok());
  DistributedWorkloadOptions small;
  ASSERT_TRUE(
      DistributedWorkloadOptionsFromParams(shrunk.spec.options, &small).ok());
  EXPECT_EQ(small.max_clients, 1);
  EXPECT_LE(small.max_workers, 2);
  EXPECT_LE(small.steps_per_client, 2);
  EXPECT_EQ(small.faults, 0);
  EXPECT_EQ(small.drop_per_mille, 0);
  std::printf(
      "skip_cleanup_graph: seed %llu fails [leaks]; shrunk in %d runs "
      "(%s) to --options=%s\n  %s\n",
      static_cast<unsigned long long>(spec.seed), shrunk.runs,
      absl::StrJoin(shrunk.kept, ", ").c_str(),
      FormatOptions(shrunk.spec.options).c_str(),
      shrunk.failure_detail.c_str());
  SimRunResult again;
  ASSERT_TRUE(RunSimulation(shrunk.spec, SimRunConfig(), &again).ok());
  EXPECT_TRUE(FailsWith(again, "leaks"));
  EXPECT_LT(again.steps_run, failing.steps_run);
  EXPECT_EQ(ActivePlantedBug(), PlantedBug::kNone);
}

TEST(DistributedPlantedBugTest, ShrinkingRefusesARunThatDoesNotFail) {
  SimRunSpec spec;
  spec.workload = kDistributedWorkload;
  spec.seed = 2;
  DistributedShrinkResult shrunk;
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkDistributedRun(spec, "leaks", 10, &shrunk)));
  spec.workload = kLocalWorkload;
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkDistributedRun(spec, "leaks", 10, &shrunk)));
}

}  // namespace
}  // namespace stepflow
