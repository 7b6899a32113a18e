// simulate: runs a simulation workload (sim/workload_runner.h) for a range
// of seeds in the deterministic simulator, with a live progress line and a
// summary table.
//
//   bazel run //sim:simulate -- --seeds=20   # local, seeds 1..20
//   bazel run //sim:simulate -- --workload=multi_client --seeds=200
//   bazel run //sim:simulate -- --workload=multi_client --faults=none
//       --seeds=50
//   bazel run //sim:simulate -- --workload=multi_client --planted_bug=drop_recv
//   bazel run //sim:simulate -- --workload=distributed --seeds=500
//   bazel run //sim:simulate -- --workload=distributed
//       --planted_bug=skip_cleanup_graph --seeds=5
//   bazel run //sim:simulate -- --seed=7 --seeds=1 --verbose
//
// With --verbose every seed prints one line ending in hash=<16 hex digits>,
// its trace hash; the same seed always prints the same hash. A failing seed
// is re-run with its trace written to --trace_dir (default
// $TEST_UNDECLARED_OUTPUTS_DIR, else /tmp); a multi-client failure is
// then shrunk (sim/shrink.h) and the reduced plan printed and saved, and a
// distributed-workload failure has its options shrunk (sim/
// distributed_shrink.h) and the reduced run's trace saved; the commands
// that replay both are printed. Exit status 1 if any seed failed
// an invariant, 2 on a bad flag or set-up error.
//
// Wall-clock time is read here only, for pacing the progress line; it never
// reaches a simulation.
#include <chrono>  // seam:allow(progress-line pacing in main only)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/sim_workload.pb.h"
#include "runtime/framework/planted_bug.h"
#include "sim/check/distributed_shrink.h"
#include "sim/check/shrink.h"
#include "sim/trace/replay.h"
#include "sim/workloads/multi_client_workload.h"
#include "sim/workloads/workload_runner.h"

ABSL_FLAG(std::string, workload, "local",
          "Workload: local, multi_client (also: mixed) or distributed.");
ABSL_FLAG(uint64_t, seed, 1, "First seed to simulate.");
ABSL_FLAG(int, seeds, 20, "Number of consecutive seeds to simulate.");
ABSL_FLAG(std::string, options, "",
          "Workload options, key=value,... (see sim/workload_runner.cc).");
ABSL_FLAG(std::string, faults, "",
          "Multi-client workload faults: 'none', or slow=P,fail=P,timeout=P "
          "(percentages of imports/runs that get a slow kernel, a failing "
          "kernel, a timeout).");
ABSL_FLAG(std::string, planted_bug, "none",
          "Test-only planted bug: none, drop_recv, early_graph_free, "
          "skip_cleanup_graph (distributed workload).");
ABSL_FLAG(int, steps, -1, "Local workload: Session::Run steps per seed.");
ABSL_FLAG(bool, verbose, false,
          "Print one line (with its trace hash) per seed.");
ABSL_FLAG(bool, fifo, false,
          "Run same-time events in FIFO order instead of a seeded choice.");
ABSL_FLAG(int64_t, latency_ns, 0, "Virtual latency added to every Schedule().");
ABSL_FLAG(int64_t, jitter_ns, 0,
          "Maximum random extra latency per Schedule() (seeded).");
ABSL_FLAG(bool, trace_kernels, true,
          "Local workload: record every kernel (traced devices).");
ABSL_FLAG(std::string, trace_dir, "",
          "Where failing seeds' traces and shrunk plans go (default "
          "$TEST_UNDECLARED_OUTPUTS_DIR, else /tmp).");
ABSL_FLAG(bool, shrink, true,
          "Shrink failing multi-client plans and distributed-workload "
          "options.");
ABSL_FLAG(bool, progress, true, "Show the live progress line on stderr.");

namespace stepflow {
namespace {

using WallClock = std::chrono::steady_clock;  // seam:allow(progress pacing)

struct Totals {
  int seeds_done = 0;
  int failed_seeds = 0;
  uint64_t steps = 0;
  uint64_t ops = 0;
  uint64_t calls = 0;  // Function call sites imported (multi_client).
  uint64_t events = 0;
  uint64_t trace_events = 0;
  int64_t sim_nanos = 0;
  std::map<std::string, int> failures_by_invariant;
};

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}

  // Redraws at most 4 times a second unless forced.
  void Show(int seed_index, int seeds, uint64_t seed, const Totals& totals,
            uint64_t live_steps, uint64_t live_events, bool force) {
    if (!enabled_) return;
    const auto now = WallClock::now();  // seam:allow(progress pacing)
    if (!force && now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    int failures = 0;
    for (const auto& [name, n] : totals.failures_by_invariant) failures += n;
    std::fprintf(stderr,
                 "\r[seed %d/%d = %llu] steps %llu  events %llu  sim time "
                 "%.3f s  failing seeds %d (%d failures)   ",
                 seed_index, seeds, static_cast<unsigned long long>(seed),
                 static_cast<unsigned long long>(totals.steps + live_steps),
                 static_cast<unsigned long long>(totals.events + live_events),
                 static_cast<double>(totals.sim_nanos) / 1e9,
                 totals.failed_seeds, failures);
    std::fflush(stderr);
    drawn_ = true;
  }
  void Finish() {
    if (enabled_ && drawn_) std::fprintf(stderr, "\n");
    drawn_ = false;
  }

 private:
  const bool enabled_;
  bool drawn_ = false;
  WallClock::time_point last_{};
};

std::string DefaultTraceDir() {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return dir != nullptr && dir[0] != '\0' ? dir : "/tmp";
}

absl::Status BuildSpec(SimRunSpec* spec) {
  spec->workload = CanonicalWorkloadName(absl::GetFlag(FLAGS_workload));
  absl::Status s = ParseOptions(absl::GetFlag(FLAGS_options), &spec->options);
  if (!s.ok()) return s;
  if (!ParsePlantedBug(absl::GetFlag(FLAGS_planted_bug).c_str(),
                       &spec->planted_bug)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown --planted_bug '", absl::GetFlag(FLAGS_planted_bug),
        "' (none, drop_recv, early_graph_free, skip_cleanup_graph)"));
  }
  TraceFields& o = spec->options;
  if (absl::GetFlag(FLAGS_fifo)) o.emplace_back("fifo", "1");
  if (absl::GetFlag(FLAGS_latency_ns) != 0) {
    o.emplace_back("latency_ns", absl::StrCat(absl::GetFlag(FLAGS_latency_ns)));
  }
  if (absl::GetFlag(FLAGS_jitter_ns) != 0) {
    o.emplace_back("jitter_ns", absl::StrCat(absl::GetFlag(FLAGS_jitter_ns)));
  }
  const bool local = spec->workload == kLocalWorkload;
  if (local && absl::GetFlag(FLAGS_steps) >= 0) {
    o.emplace_back("steps", absl::StrCat(absl::GetFlag(FLAGS_steps)));
  }
  if (local && !absl::GetFlag(FLAGS_trace_kernels)) {
    o.emplace_back("trace_kernels", "0");
  }
  const std::string faults = absl::GetFlag(FLAGS_faults);
  if (!faults.empty()) {
    if (local) {
      return absl::InvalidArgumentError(
          "--faults applies to the multi-client workload only");
    }
    TraceFields f;
    if (faults == "none") {
      f = {{"slow", "0"}, {"fail", "0"}, {"timeout", "0"}};
    } else {
      s = ParseOptions(faults, &f);
      if (!s.ok()) return s;
    }
    const std::map<std::string, std::string> names = {
        {"slow", "slow_kernel_percent"},
        {"fail", "failing_kernel_percent"},
        {"timeout", "timeout_percent"}};
    for (const auto& [key, value] : f) {
      auto it = names.find(key);
      if (it == names.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--faults: unknown fault '", key, "' (slow, fail, timeout)"));
      }
      o.emplace_back(it->second, value);
    }
  }
  return absl::OkStatus();
}

// Shrinks a failing distributed run's options, saves the reduced run's
// trace and prints how to replay it.
void ReportShrunkDistributedRun(const SimRunSpec& spec,
                                const std::string& invariant,
                                const std::string& base) {
  DistributedShrinkResult shrunk;
  absl::Status s = ShrinkDistributedRun(spec, invariant, 300, &shrunk);
  if (!s.ok()) {
    std::printf("  (shrinking failed: %s)\n", s.ToString().c_str());
    return;
  }
  const std::string path = absl::StrCat(base, ".shrunk.trace");
  SimRunConfig config;
  config.trace_path = path;
  SimRunResult small;
  s = RunSimulation(shrunk.spec, config, &small);
  std::printf("  shrunk in %d runs%s (%s), still failing [%s] %s\n",
              shrunk.runs, shrunk.hit_run_limit ? " (run limit hit)" : "",
              absl::StrJoin(shrunk.kept, ", ").c_str(), invariant.c_str(),
              shrunk.failure_detail.substr(0, shrunk.failure_detail.find('\n'))
                  .c_str());
  std::printf(
      "  reduced run: bazel run //sim:simulate -- "
      "--workload=distributed --seed=%llu --seeds=1 --planted_bug=%s "
      "--options=%s\n",
      static_cast<unsigned long long>(spec.seed),
      PlantedBugName(spec.planted_bug),
      FormatOptions(shrunk.spec.options).c_str());
  if (!s.ok()) {
    std::printf("  (writing its trace failed: %s)\n", s.ToString().c_str());
    return;
  }
  std::printf("  reduced trace: %s\n  replay: bazel run //sim:replay -- %s\n",
              path.c_str(), path.c_str());
}

// Writes the failing seed's trace, shrinks its plan, prints how to replay.
void ReportFailingSeed(const SimRunSpec& spec, const SimRunResult& run,
                       const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // Reported by OpenFile.
  const std::string base =
      absl::StrCat(dir, "/", spec.workload, "_seed_", spec.seed);
  const std::string trace_path = absl::StrCat(base, ".trace");
  SimRunConfig config;
  config.trace_path = trace_path;
  SimRunResult again;
  absl::Status s = RunSimulation(spec, config, &again);
  std::printf("\nseed %llu FAILED: %s\n",
              static_cast<unsigned long long>(spec.seed),
              absl::StrJoin(FailedInvariants(run.failures), ", ").c_str());
  constexpr size_t kListed = 8;
  for (size_t i = 0; i < run.failures.size() && i < kListed; ++i) {
    std::printf("  [%s] %s\n", run.failures[i].invariant.c_str(),
                run.failures[i].detail.c_str());
  }
  if (run.failures.size() > kListed) {
    std::printf("  ... and %zu more\n", run.failures.size() - kListed);
  }
  if (!s.ok()) {
    std::printf("  (writing its trace failed: %s)\n", s.ToString().c_str());
    return;
  }
  std::printf("  trace: %s\n  replay: bazel run //sim:replay -- %s\n",
              trace_path.c_str(), trace_path.c_str());
  if (!absl::GetFlag(FLAGS_shrink)) return;
  if (spec.workload == kDistributedWorkload) {
    ReportShrunkDistributedRun(spec, run.failures.front().invariant, base);
    return;
  }
  if (spec.workload != kMultiClientWorkload) return;

  SimRunSpec with_plan = spec;
  with_plan.plan = again.plan;
  ShrinkResult shrunk;
  s = ShrinkPlan(with_plan, run.failures.front().invariant, ShrinkOptions(),
                 &shrunk);
  if (!s.ok()) {
    std::printf("  (shrinking failed: %s)\n", s.ToString().c_str());
    return;
  }
  const std::string plan_path = absl::StrCat(base, ".shrunk.plan");
  SimRunSpec small = spec;
  small.plan = shrunk.plan.SerializeAsString();
  s = WriteSpecFile(plan_path, small, small.plan);
  std::printf(
      "  shrunk from %d to %d ops in %d runs%s, still failing [%s] %s:\n%s",
      shrunk.original_ops, shrunk.plan.ops_size(), shrunk.runs,
      shrunk.hit_run_limit ? " (run limit hit)" : "", shrunk.invariant.c_str(),
      shrunk.failure_detail.substr(0, shrunk.failure_detail.find('\n')).c_str(),
      DescribePlan(shrunk.plan).c_str());
  if (!s.ok()) {
    std::printf("  (saving the shrunk plan failed: %s)\n",
                s.ToString().c_str());
    return;
  }
  std::printf("  shrunk plan: %s\n  replay: bazel run //sim:replay -- %s\n",
              plan_path.c_str(), plan_path.c_str());
}

int Main() {
  const uint64_t first = absl::GetFlag(FLAGS_seed);
  const int count = absl::GetFlag(FLAGS_seeds);
  const bool verbose = absl::GetFlag(FLAGS_verbose);
  if (count < 1) {
    std::fprintf(stderr, "--seeds must be >= 1\n");
    return 2;
  }
  SimRunSpec spec;
  absl::Status s = BuildSpec(&spec);
  if (!s.ok()) {
    std::fprintf(stderr, "simulate: %s\n", s.ToString().c_str());
    return 2;
  }
  const std::string dir = absl::GetFlag(FLAGS_trace_dir).empty()
                              ? DefaultTraceDir()
                              : absl::GetFlag(FLAGS_trace_dir);
  std::printf(
      "simulate: workload=%s seeds=%llu..%llu options={%s} "
      "planted_bug=%s\n",
      spec.workload.c_str(), static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + count - 1),
      FormatOptions(spec.options).c_str(), PlantedBugName(spec.planted_bug));
  std::fflush(stdout);

  Totals totals;
  Progress progress(absl::GetFlag(FLAGS_progress));
  for (int k = 0; k < count; ++k) {
    spec.seed = first + static_cast<uint64_t>(k);
    uint64_t live_steps = 0, live_events = 0;
    SimRunConfig config;
    config.observer = [&](const TraceEvent& e) {
      ++live_events;
      if (e.kind == SIM_STEP_DONE) ++live_steps;
      if ((live_events & 1023) == 0) {
        progress.Show(k + 1, count, spec.seed, totals, live_steps, live_events,
                      false);
      }
    };
    SimRunResult r;
    s = RunSimulation(spec, config, &r);
    if (!s.ok()) {
      progress.Finish();
      std::fprintf(stderr, "seed %llu: set-up failed: %s\n",
                   static_cast<unsigned long long>(spec.seed),
                   s.ToString().c_str());
      return 2;
    }
    ++totals.seeds_done;
    totals.steps += static_cast<uint64_t>(r.steps_run);
    totals.ops += static_cast<uint64_t>(r.ops_run);
    totals.calls += static_cast<uint64_t>(r.function_calls);
    totals.events += r.events_run;
    totals.trace_events += r.trace_events;
    totals.sim_nanos += r.virtual_nanos;
    for (const SimInvariantFailure& f : r.failures) {
      ++totals.failures_by_invariant[f.invariant];
    }
    if (verbose) {
      progress.Finish();
      std::printf(
          "seed=%llu steps=%d ops=%d calls=%d failures=%zu events=%llu "
          "trace_events=%llu sim_ns=%lld hash=%016llx\n",
          static_cast<unsigned long long>(spec.seed), r.steps_run, r.ops_run,
          r.function_calls, r.failures.size(),
          static_cast<unsigned long long>(r.events_run),
          static_cast<unsigned long long>(r.trace_events),
          static_cast<long long>(r.virtual_nanos),
          static_cast<unsigned long long>(r.trace_hash));
      std::fflush(stdout);
    }
    if (!r.failures.empty()) {
      ++totals.failed_seeds;
      progress.Finish();
      ReportFailingSeed(spec, r, dir);
      std::fflush(stdout);
    }
    progress.Show(k + 1, count, spec.seed, totals, 0, 0, k + 1 == count);
  }
  progress.Finish();

  std::printf("\n%8s %10s %10s %8s %12s %14s %14s %13s\n", "seeds", "ops",
              "steps", "calls", "events", "trace_events", "sim_time_s",
              "failing_seeds");
  std::printf("%8d %10llu %10llu %8llu %12llu %14llu %14.3f %13d\n",
              totals.seeds_done, static_cast<unsigned long long>(totals.ops),
              static_cast<unsigned long long>(totals.steps),
              static_cast<unsigned long long>(totals.calls),
              static_cast<unsigned long long>(totals.events),
              static_cast<unsigned long long>(totals.trace_events),
              static_cast<double>(totals.sim_nanos) / 1e9, totals.failed_seeds);
  std::printf("failures by invariant:%s\n",
              totals.failures_by_invariant.empty() ? " none" : "");
  for (const auto& [name, n] : totals.failures_by_invariant) {
    std::printf("  %-14s %d\n", name.c_str(), n);
  }
  return totals.failed_seeds > 0 ? 1 : 0;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs a simulation workload for a range of seeds in the deterministic "
      "simulator.");
  absl::ParseCommandLine(argc, argv);
  return stepflow::Main();
}
