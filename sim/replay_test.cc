// Replay: a recorded trace replays identically (in this process and through
// the replay binary), a tampered trace is reported as divergent at the
// tampered index, a failing run's trace replays to the same failure, and
// spec/plan files round-trip.
//
// Usage (from Bazel): replay_test <path to the replay binary>.
#include "sim/trace/replay.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/planted_bug.h"
#include "sim/trace/trace.h"
#include "sim/workloads/local_workload.h"
#include "sim/workloads/workload_runner.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpPath;

std::string g_replay_binary;

SimRunSpec LocalSpec(uint64_t seed) {
  SimRunSpec spec;
  spec.workload = kLocalWorkload;
  spec.seed = seed;
  spec.options = {{"steps", "8"}, {"jitter_ns", "300"}};
  return spec;
}

SimRunResult Record(const SimRunSpec& spec, const std::string& path) {
  SimRunConfig config;
  config.trace_path = path;
  SimRunResult r;
  absl::Status s = RunSimulation(spec, config, &r);
  EXPECT_TRUE(s.ok()) << s;
  return r;
}

// Runs the replay binary on `path`; returns its exit status and output.
int RunReplayBinary(const std::string& path, std::string* out) {
  const std::string cmd =
      absl::StrCat("'", g_replay_binary, "' '", path, "' 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  const int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ReplayTest, RecordedTraceReplaysIdentically) {
  const std::string path = TestTmpPath("local_7.trace");
  const SimRunSpec spec = LocalSpec(7);
  const SimRunResult recorded = Record(spec, path);
  EXPECT_TRUE(recorded.failures.empty());

  ReplayReport report;
  ASSERT_TRUE(Replay(path, &report).ok());
  EXPECT_TRUE(report.compared);
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);
  EXPECT_TRUE(report.recorded_has_footer);
  EXPECT_EQ(report.spec.seed, 7u);
  EXPECT_EQ(report.spec.workload, kLocalWorkload);
  // The header lists every option, defaults included.
  LocalWorkloadOptions resolved;
  resolved.steps = 8;
  resolved.loop.schedule_jitter_nanos = 300;
  EXPECT_EQ(report.spec.options, LocalWorkloadParams(resolved));
  EXPECT_EQ(report.result.trace_hash, recorded.trace_hash);
  EXPECT_EQ(report.recorded_hash, recorded.trace_hash);
  EXPECT_EQ(report.recorded_events, recorded.trace_events);

  ASSERT_FALSE(g_replay_binary.empty());
  std::string out;
  EXPECT_EQ(RunReplayBinary(path, &out), 0) << out;
  EXPECT_TRUE(absl::StrContains(out, "identical")) << out;
  EXPECT_TRUE(absl::StrContains(out, "no invariant failures")) << out;
}

TEST(ReplayTest, TamperedTraceDivergesAtTheTamperedEvent) {
  const std::string path = TestTmpPath("local_8.trace");
  Record(LocalSpec(8), path);
  TraceHeader header;
  std::vector<TraceEvent> events;
  ASSERT_TRUE(TraceReader::ReadAll(path, &header, &events, nullptr).ok());
  ASSERT_GT(events.size(), 100u);

  // Change one record in the middle and write a well-formed file again.
  constexpr size_t kTampered = 57;
  events[kTampered].time_nanos += 1;
  const std::string tampered = TestTmpPath("local_8_tampered.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(tampered, header).ok());
    for (const TraceEvent& e : events) r.Record(e);
    ASSERT_TRUE(r.Close().ok());
  }
  ReplayReport report;
  ASSERT_TRUE(Replay(tampered, &report).ok());
  EXPECT_EQ(report.divergence_index, static_cast<int64_t>(kTampered));
  EXPECT_EQ(report.recorded_event, events[kTampered].DebugString());
  EXPECT_NE(report.replayed_event, report.recorded_event);

  std::string out;
  EXPECT_EQ(RunReplayBinary(tampered, &out), 1) << out;
  EXPECT_TRUE(
      absl::StrContains(out, absl::StrCat("DIVERGED at event ", kTampered)))
      << out;
  EXPECT_TRUE(absl::StrContains(out, events[kTampered].DebugString())) << out;

  // The original events again, for the checks below.
  events[kTampered].time_nanos -= 1;

  // A run that died (no footer, fewer events) replays as a prefix: copy the
  // file while its recorder is still open, after a Flush.
  const std::string partial = TestTmpPath("local_8_partial.trace");
  const std::string died = TestTmpPath("local_8_died.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(partial, header).ok());
    for (size_t i = 0; i < 40; ++i) r.Record(events[i]);
    r.Flush();
    std::ifstream in(partial, std::ios::binary);
    std::ofstream copy(died, std::ios::binary | std::ios::trunc);
    copy << in.rdbuf();
  }
  ASSERT_TRUE(Replay(died, &report).ok());
  EXPECT_FALSE(report.recorded_has_footer);
  EXPECT_EQ(report.recorded_events, 40u);
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);

  // A trace with one extra event diverges at its end.
  const std::string longer = TestTmpPath("local_8_longer.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(longer, header).ok());
    for (const TraceEvent& e : events) r.Record(e);
    TraceEvent extra;
    extra.kind = SIM_NOTE;
    extra.task = "extra";
    r.Record(extra);
    ASSERT_TRUE(r.Close().ok());
  }
  ASSERT_TRUE(Replay(longer, &report).ok());
  EXPECT_EQ(report.divergence_index, static_cast<int64_t>(events.size()));
  EXPECT_EQ(report.replayed_event, "<end of trace>");
}

TEST(ReplayTest, FailingTraceReplaysToTheSameFailure) {
  SimRunSpec spec = LocalSpec(3);
  spec.planted_bug = PlantedBug::kDropRecv;
  const std::string path = TestTmpPath("local_3_drop_recv.trace");
  const SimRunResult recorded = Record(spec, path);
  ASSERT_FALSE(recorded.failures.empty());
  EXPECT_EQ(FailedInvariants(recorded.failures),
            std::vector<std::string>{"liveness"});
  EXPECT_EQ(ActivePlantedBug(), PlantedBug::kNone);  // Restored after the run.

  ReplayReport report;
  ASSERT_TRUE(Replay(path, &report).ok());
  EXPECT_EQ(report.spec.planted_bug, PlantedBug::kDropRecv);
  EXPECT_EQ(report.divergence_index, -1) << DescribeReplay(report);
  ASSERT_EQ(report.result.failures.size(), recorded.failures.size());
  for (size_t i = 0; i < recorded.failures.size(); ++i) {
    EXPECT_EQ(report.result.failures[i].invariant,
              recorded.failures[i].invariant);
    EXPECT_EQ(report.result.failures[i].detail, recorded.failures[i].detail);
  }
  std::string out;
  EXPECT_EQ(RunReplayBinary(path, &out), 0) << out;
  EXPECT_TRUE(absl::StrContains(out, "FAILURE [liveness]")) << out;

  // Without the planted bug the same seed is clean: the bug is the cause.
  spec.planted_bug = PlantedBug::kNone;
  SimRunResult clean;
  ASSERT_TRUE(RunSimulation(spec, SimRunConfig(), &clean).ok());
  EXPECT_TRUE(clean.failures.empty());
  EXPECT_NE(clean.trace_hash, recorded.trace_hash);
}

TEST(ReplayTest, SpecFilesRoundTrip) {
  SimRunSpec spec = LocalSpec(11);
  spec.planted_bug = PlantedBug::kEarlyGraphFree;
  const std::string path = TestTmpPath("spec_11.plan");
  ASSERT_TRUE(WriteSpecFile(path, spec, "").ok());
  SimRunSpec back;
  bool is_trace = true;
  ASSERT_TRUE(ReadSpecFile(path, &back, &is_trace).ok());
  EXPECT_FALSE(is_trace);
  EXPECT_EQ(back.workload, spec.workload);
  EXPECT_EQ(back.seed, spec.seed);
  EXPECT_EQ(back.options, spec.options);
  EXPECT_EQ(back.planted_bug, spec.planted_bug);

  // A plan file runs (nothing to compare).
  ReplayReport report;
  ASSERT_TRUE(Replay(path, &report).ok());
  EXPECT_FALSE(report.compared);
  EXPECT_EQ(report.result.steps_run, 8);

  // Not a trace and not a plan.
  const std::string junk = TestTmpPath("junk.bin");
  {
    std::ofstream out(junk, std::ios::binary);
    out << "definitely not a trace";
  }
  EXPECT_TRUE(absl::IsDataLoss(ReadSpecFile(junk, &back, &is_trace)));
  EXPECT_TRUE(
      absl::IsNotFound(ReadSpecFile(TestTmpPath("absent"), &back, &is_trace)));
  // Bad specs are errors, not failures.
  SimRunSpec bad = LocalSpec(1);
  bad.options = {{"no_such_option", "1"}};
  SimRunResult r;
  EXPECT_TRUE(absl::IsInvalidArgument(RunSimulation(bad, SimRunConfig(), &r)));
  bad = LocalSpec(1);
  bad.workload = "nope";
  EXPECT_TRUE(absl::IsInvalidArgument(RunSimulation(bad, SimRunConfig(), &r)));
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) {
    char* resolved = realpath(argv[1], nullptr);
    if (resolved != nullptr) {
      stepflow::g_replay_binary = resolved;
      std::free(resolved);
    }
  }
  return RUN_ALL_TESTS();
}
