// The same seeds, run in this process and in a separate `simulate` process
// started from another working directory with extra environment variables
// (so a different address-space layout, environment and cwd), must give
// identical trace hashes. Catches anything that leaks pointer values,
// per-process hash salts, the environment or the filesystem into a run.
//
// Usage (from Bazel): cross_process_determinism_test <path to simulate>.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/framework/planted_bug.h"
#include "sim/workloads/local_workload.h"
#include "sim/workloads/workload_runner.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

std::string g_simulate;  // Absolute path of the simulate binary.

constexpr uint64_t kFirstSeed = 1;
constexpr int kSeeds = 6;

// Runs `simulate` in a scratch directory with extra environment variables
// and returns seed -> trace hash parsed from its --verbose lines.
std::map<uint64_t, uint64_t> RunChild(const std::string& extra_flags,
                                      const std::string& dir_name,
                                      int expected_rc = 0) {
  const std::string dir = test::TestTmpPath(dir_name);
  const std::string cmd = absl::StrCat(
      "mkdir -p '", dir, "' && cd '", dir, "' && env STEPFLOW_SIM_NOISE=",
      std::string(1000 + dir_name.size() * 37, 'x'),
      " LC_ALL=C TZ=Pacific/Chatham MALLOC_PERTURB_=165 '", g_simulate,
      "' --seed=", kFirstSeed, " --seeds=", kSeeds, " --verbose ", extra_flags,
      " 2>&1");
  std::map<uint64_t, uint64_t> hashes;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "cannot start: " << cmd;
    return hashes;
  }
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  EXPECT_TRUE(WIFEXITED(rc)) << cmd << "\n" << out;
  EXPECT_EQ(WEXITSTATUS(rc), expected_rc) << cmd << "\n" << out;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (!absl::ConsumePrefix(&line, "seed=")) continue;
    uint64_t seed = 0, hash = 0;
    std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
    if (!absl::SimpleAtoi(parts[0], &seed)) continue;
    for (absl::string_view part : parts) {
      if (absl::ConsumePrefix(&part, "hash=")) {
        EXPECT_TRUE(absl::SimpleHexAtoi(part, &hash)) << line;
      }
    }
    hashes[seed] = hash;
  }
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kSeeds)) << out;
  return hashes;
}

std::map<uint64_t, uint64_t> RunHere(const LocalWorkloadOptions& o) {
  std::map<uint64_t, uint64_t> hashes;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kSeeds; ++seed) {
    LocalWorkloadResult r;
    absl::Status s = RunLocalWorkload(seed, o, &r);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(r.failures.empty());
    hashes[seed] = r.trace_hash;
  }
  return hashes;
}

TEST(CrossProcessDeterminismTest, DefaultWorkload) {
  ASSERT_FALSE(g_simulate.empty()) << "pass the simulate binary as argv[1]";
  const std::map<uint64_t, uint64_t> here = RunHere(LocalWorkloadOptions());
  EXPECT_EQ(RunChild("", "child_a"), here);
  // A second child, elsewhere, with a differently sized environment.
  EXPECT_EQ(RunChild("", "child_b_with_a_longer_directory_name"), here);
}

TEST(CrossProcessDeterminismTest, WithLatencyJitterAndPlainDevices) {
  ASSERT_FALSE(g_simulate.empty());
  LocalWorkloadOptions o;
  o.trace_kernels = false;
  o.loop.schedule_latency_nanos = 100;
  o.loop.schedule_jitter_nanos = 900;
  EXPECT_EQ(RunChild("--trace_kernels=false --latency_ns=100 --jitter_ns=900",
                     "child_c"),
            RunHere(o));
}

TEST(CrossProcessDeterminismTest, MultiClientWorkloadAndPlantedBug) {
  ASSERT_FALSE(g_simulate.empty());
  // The multi-client workload through the runner the simulate binary uses. With
  // a planted bug seeds fail (exit status 1), and still hash the same.
  for (const char* bug : {"none", "drop_recv"}) {
    SCOPED_TRACE(bug);
    SimRunSpec spec;
    spec.workload = kMultiClientWorkload;
    ASSERT_TRUE(ParsePlantedBug(bug, &spec.planted_bug));
    std::map<uint64_t, uint64_t> here;
    bool any_failed = false;
    for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kSeeds; ++seed) {
      spec.seed = seed;
      SimRunResult r;
      ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &r).ok());
      any_failed |= !r.failures.empty();
      here[seed] = r.trace_hash;
    }
    EXPECT_EQ(any_failed, std::string(bug) != "none");
    const std::string flags = absl::StrCat(
        "--workload=multi_client --shrink=false --progress=false "
        "--planted_bug=",
        bug, " --trace_dir=", test::TestTmpDir());
    EXPECT_EQ(RunChild(flags, absl::StrCat("child_multi_client_", bug),
                       any_failed ? 1 : 0),
              here);
  }
}

TEST(CrossProcessDeterminismTest, DistributedWorkload) {
  ASSERT_FALSE(g_simulate.empty());
  // Every message of the simulated cluster is serialised and digested:
  // a map field serialised in hash order would show up here.
  SimRunSpec spec;
  spec.workload = kDistributedWorkload;
  std::map<uint64_t, uint64_t> here;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kSeeds; ++seed) {
    spec.seed = seed;
    SimRunResult r;
    ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &r).ok());
    EXPECT_TRUE(r.failures.empty());
    here[seed] = r.trace_hash;
  }
  EXPECT_EQ(
      RunChild("--workload=distributed --progress=false", "child_distributed"),
      here);
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
