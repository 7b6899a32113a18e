// replay: re-runs a recorded simulation and checks that it behaves exactly
// as recorded (sim/replay.h) — or replays a recorded real run.
//
//   bazel run //sim:replay -- /tmp/seed_7.trace     # a trace from simulate
//   bazel run //sim:replay -- /tmp/seed_7.plan      # a (shrunk) plan file
//
// Recorded real runs (grpc_server --record; sim/workloads/recorded_run.h):
// give every recording of the run (one per server process, restarts
// included) or one merged recording. The client's calls are re-issued to
// the real Master and Workers in the simulator, in virtual time, with the
// recorded crashes and restarts (sim/workloads/recorded_replay.h):
//
//   bazel run //sim:replay -- /tmp/rec/task0.rec /tmp/rec/task1.rec
//       /tmp/rec/task1.rec.1
//   bazel run //sim:replay -- --planted_bug=swapped_sub
//       --shrink_to=/tmp/shrunk.rec /tmp/rec/task*.rec*
//   bazel run //sim:replay -- --planted_bug=swapped_sub /tmp/shrunk.rec
//
// --list prints the recorded timeline (client calls, faults, the workers'
// calls) before replaying it.
// --planted_bug=NAME replays with a test-only planted bug; --shrink_to=FILE
// (with a planted bug) shrinks a run that fails with it to fewer client
// calls (sim/check/recorded_shrink.h) and writes the reduced run there.
//
// Exit status (a recorded run): 0 when it replays identically, 1 when it
// departs (the event and both records are printed; with --shrink_to, after
// shrinking), 2 on a bad file or set-up error.
//
// Exit status: 0 when the trace replays identically (its failures, if any,
// are printed: they are reproduced) or a plan file ran; 1 when the replay
// diverged (the index and both records are printed); 2 on a bad file or
// set-up error. Relative paths are taken from the directory `bazel run` was
// started in.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/sim_workload.pb.h"
#include "runtime/framework/planted_bug.h"
#include "sim/check/recorded_shrink.h"
#include "sim/trace/replay.h"
#include "sim/workloads/multi_client_workload.h"
#include "sim/workloads/recorded_replay.h"
#include "sim/workloads/recorded_run.h"

namespace {

constexpr char kUsage[] =
    "usage: replay <trace or plan file>\n"
    "       replay [--list] [--planted_bug=NAME] [--shrink_to=FILE] "
    "<recording>...\n";

// Replays (and shrinks) a recorded real run; the exit status.
int ReplayRecorded(const std::vector<std::string>& paths,
                   stepflow::PlantedBug bug, const std::string& shrink_to,
                   bool list) {
  stepflow::RecordedRun run;
  absl::Status s = stepflow::LoadRecordedRun(paths, &run);
  if (s.ok() && list) {
    std::fputs(stepflow::DescribeRecordedRun(run, true).c_str(), stdout);
  }
  stepflow::RecordedReplayResult result;
  stepflow::RecordedReplayOptions options;
  options.planted_bug = bug;
  if (s.ok()) s = stepflow::ReplayRecordedRun(run, options, &result);
  if (!s.ok()) {
    std::fprintf(stderr, "replay: %s\n", s.ToString().c_str());
    return 2;
  }
  if (bug != stepflow::PlantedBug::kNone) {
    std::printf("planted bug: %s\n", stepflow::PlantedBugName(bug));
  }
  std::fputs(stepflow::DescribeRecordedReplay(run, result).c_str(), stdout);
  if (!shrink_to.empty()) {
    stepflow::RecordedShrinkResult shrunk;
    s = stepflow::ShrinkRecordedRun(run, bug, 400, &shrunk);
    if (s.ok()) s = stepflow::WriteRecordedRun(shrink_to, shrunk.run);
    if (!s.ok()) {
      std::fprintf(stderr, "replay: shrinking: %s\n", s.ToString().c_str());
      return 2;
    }
    std::printf(
        "shrunk: %d -> %zu client calls in %d replays%s; departs at event "
        "%lld\n  without the bug: %s\n  with the bug:    %s\nreduced run "
        "written to %s\n",
        shrunk.original_calls, shrunk.run.calls.size(), shrunk.runs,
        shrunk.hit_run_limit ? " (run limit)" : "",
        static_cast<long long>(shrunk.departure_index),
        shrunk.reference.c_str(), shrunk.with_bug.c_str(), shrink_to.c_str());
    for (const stepflow::RecordedCall& c : shrunk.run.calls) {
      std::printf("  %s\n", c.Describe().c_str());
    }
  }
  return result.divergence_index >= 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  std::vector<std::string> paths;
  stepflow::PlantedBug bug = stepflow::PlantedBug::kNone;
  std::string shrink_to;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--list") {
      list = true;
      continue;
    }
    if (absl::StartsWith(arg, "--planted_bug=")) {
      if (!stepflow::ParsePlantedBug(arg.c_str() + 14, &bug)) {
        std::fprintf(stderr, "replay: unknown planted bug in %s\n",
                     arg.c_str());
        return 2;
      }
      continue;
    }
    if (absl::StartsWith(arg, "--shrink_to=")) {
      shrink_to = arg.substr(12);
      if (!shrink_to.empty() && shrink_to[0] != '/' && cwd != nullptr) {
        shrink_to = absl::StrCat(cwd, "/", shrink_to);
      }
      continue;
    }
    if (arg.empty() || arg[0] == '-') {
      std::fputs(kUsage, stderr);
      return 2;
    }
    if (arg[0] != '/' && cwd != nullptr) arg = absl::StrCat(cwd, "/", arg);
    paths.push_back(arg);
  }
  if (paths.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::unique_ptr<stepflow::TraceReader> reader;
  const bool recorded = stepflow::TraceReader::Open(paths[0], &reader).ok() &&
                        stepflow::IsRecordedHeader(reader->header());
  reader.reset();
  if (recorded) return ReplayRecorded(paths, bug, shrink_to, list);
  if (paths.size() != 1 || bug != stepflow::PlantedBug::kNone ||
      !shrink_to.empty() || list) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  stepflow::ReplayReport report;
  const absl::Status s = stepflow::Replay(paths[0], &report);
  if (!s.ok()) {
    std::fprintf(stderr, "replay: %s\n", s.ToString().c_str());
    return 2;
  }
  std::fputs(stepflow::DescribeReplay(report).c_str(), stdout);
  stepflow::SimWorkloadPlan plan;
  if (!report.compared && !report.spec.plan.empty() &&
      plan.ParseFromString(report.spec.plan)) {
    std::printf("the plan:\n%s", stepflow::DescribePlan(plan).c_str());
  }
  return report.compared && report.divergence_index >= 0 ? 1 : 0;
}
