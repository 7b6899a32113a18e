// The simulate binary end to end: a clean run exits 0 with a summary; a
// failing seed (planted bug) exits 1, writes its trace and its shrunk plan,
// prints the commands that replay both, and both replay to the failure.
//
// Usage (from Bazel): simulate_test <path to the simulate binary>.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sim/trace/replay.h"
#include "sim/workloads/workload_runner.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

std::string g_simulate;

int RunSimulate(const std::string& flags, std::string* out) {
  const std::string cmd = absl::StrCat("'", g_simulate, "' ", flags, " 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  const int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string Dir() { return test::TestTmpPath("simulate_test"); }

TEST(SimulateTest, CleanSeedsExitZeroWithASummary) {
  std::string out;
  ASSERT_EQ(
      RunSimulate("--workload=multi_client --seeds=3 --progress=false", &out),
      0)
      << out;
  EXPECT_TRUE(absl::StrContains(out, "failing_seeds")) << out;
  EXPECT_TRUE(absl::StrContains(out, "failures by invariant: none")) << out;
}

TEST(SimulateTest, FailingSeedIsSavedShrunkAndReplayable) {
  ASSERT_FALSE(g_simulate.empty());
  const std::string dir = Dir();
  std::string out;
  ASSERT_EQ(
      RunSimulate(absl::StrCat("--workload=multi_client --seed=1 --seeds=1 "
                               "--planted_bug=drop_recv --trace_dir=",
                               dir),
                  &out),
      1)
      << out;
  const std::string trace = absl::StrCat(dir, "/multi_client_seed_1.trace");
  const std::string plan =
      absl::StrCat(dir, "/multi_client_seed_1.shrunk.plan");
  EXPECT_TRUE(absl::StrContains(out, "seed 1 FAILED: liveness")) << out;
  EXPECT_TRUE(
      absl::StrContains(out, absl::StrCat("bazel run //sim:replay -- ", trace)))
      << out;
  EXPECT_TRUE(
      absl::StrContains(out, absl::StrCat("bazel run //sim:replay -- ", plan)))
      << out;
  EXPECT_TRUE(absl::StrContains(out, "liveness       1")) << out;

  ReplayReport report;
  ASSERT_TRUE(Replay(trace, &report).ok());
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);
  EXPECT_EQ(FailedInvariants(report.result.failures)[0], "liveness");
  ASSERT_TRUE(Replay(plan, &report).ok());
  EXPECT_FALSE(report.compared);
  EXPECT_FALSE(report.result.failures.empty());
  EXPECT_EQ(report.result.failures[0].invariant, "liveness");
  EXPECT_LE(report.result.ops_run, 6);
}

TEST(SimulateTest, BadFlagsExitTwo) {
  std::string out;
  EXPECT_EQ(RunSimulate("--planted_bug=nope", &out), 2) << out;
  EXPECT_EQ(RunSimulate("--faults=none", &out), 2)
      << out;  // Local has no faults.
  EXPECT_EQ(RunSimulate("--workload=remote", &out), 2) << out;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) {
    char* resolved = realpath(argv[1], nullptr);
    if (resolved != nullptr) {
      stepflow::g_simulate = resolved;
      std::free(resolved);
    }
  }
  return RUN_ALL_TESTS();
}
