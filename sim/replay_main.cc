// replay: re-runs a recorded simulation and checks that it behaves exactly
// as recorded (sim/replay.h).
//
//   bazel run //sim:replay -- /tmp/seed_7.trace     # a trace from simulate
//   bazel run //sim:replay -- /tmp/seed_7.plan      # a (shrunk) plan file
//
// Exit status: 0 when the trace replays identically (its failures, if any,
// are printed: they are reproduced) or a plan file ran; 1 when the replay
// diverged (the index and both records are printed); 2 on a bad file or
// set-up error. Relative paths are taken from the directory `bazel run` was
// started in.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/sim_workload.pb.h"
#include "sim/trace/replay.h"
#include "sim/workloads/multi_client_workload.h"

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: replay <trace or plan file>\n");
    return 2;
  }
  std::string path = argv[1];
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!path.empty() && path[0] != '/' && cwd != nullptr) {
    path = absl::StrCat(cwd, "/", path);
  }
  stepflow::ReplayReport report;
  const absl::Status s = stepflow::Replay(path, &report);
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
