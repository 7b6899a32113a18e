// Fuzzes the simulator's workloads: the bytes choose the workload, the seed
// and the workload's options (and, for the multi-client workload, which of the
// generated plan's ops to keep), then the simulation runs with every
// invariant checked (sim/workload_runner.h). Any invariant failure is a
// crash: the description is printed and the process aborts. Options the
// workload rejects (InvalidArgument) are not interesting and return.
//
// Layout (FuzzInput, front to back): workload byte (even: local, odd:
// multi_client), 8 seed bytes (little-endian), then per workload:
//   local: steps 0..8, fifo, trace_kernels, latency (x 10 ns), jitter
//          (x 10 ns);
//   multi_client: max_graphs 1..3, max_clients 2..4, max_ops_per_client 1..8,
//          max_dag_nodes 2..16, slow/fail/timeout percent 0..100 each,
//          max think time (x 10 us), fifo, jitter (x 10 ns), then one bit
//          per generated op (1 = drop it if Droppable; missing bits keep),
//          the plan made well-formed again (sim/shrink.h WellFormedOps).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_input.h"
#include "proto/sim_workload.pb.h"
#include "runtime/framework/planted_bug.h"
#include "sim/check/shrink.h"
#include "sim/workloads/workload_runner.h"

namespace {

using stepflow::SimRunSpec;
using stepflow::TraceFields;
using stepflow::fuzzing::FuzzInput;

void Opt(TraceFields* o, const char* key, int64_t value) {
  o->emplace_back(key, absl::StrCat(value));
}

void DecodeLocal(FuzzInput* in, SimRunSpec* spec) {
  TraceFields& o = spec->options;
  Opt(&o, "steps", in->Choice(0, 8));
  Opt(&o, "fifo", in->Bool() ? 1 : 0);
  Opt(&o, "trace_kernels", in->Bool() ? 1 : 0);
  Opt(&o, "latency_ns", 10 * in->Choice(0, 255));
  Opt(&o, "jitter_ns", 10 * in->Choice(0, 255));
}

// Ops whose removal leaves a plan the workload's references still
// describe: removing a creation takes everything on the object with it
// (WellFormedOps); imports and single partial-run steps stay, since runs
// name their nodes and partial runs feed each other.
bool Droppable(stepflow::SimOp::Kind kind) {
  switch (kind) {
    case stepflow::SimOp::NEW_GRAPH:
    case stepflow::SimOp::NEW_SESSION:
    case stepflow::SimOp::RUN:
    case stepflow::SimOp::PRUN_SETUP:
    case stepflow::SimOp::CLOSE_SESSION:
    case stepflow::SimOp::DELETE_SESSION:
    case stepflow::SimOp::DELETE_GRAPH:
      return true;
    default:
      return false;
  }
}

// False if the options are rejected.
bool DecodeMultiClient(FuzzInput* in, SimRunSpec* spec) {
  TraceFields& o = spec->options;
  Opt(&o, "max_graphs", in->Choice(1, 3));
  Opt(&o, "max_clients", in->Choice(2, 4));
  Opt(&o, "min_ops_per_client", 1);
  Opt(&o, "max_ops_per_client", in->Choice(1, 8));
  Opt(&o, "max_dag_nodes", in->Choice(2, 16));
  Opt(&o, "slow_kernel_percent", in->Choice(0, 100));
  Opt(&o, "failing_kernel_percent", in->Choice(0, 100));
  Opt(&o, "timeout_percent", in->Choice(0, 100));
  Opt(&o, "max_think_ns", 10000 * in->Choice(0, 255));
  Opt(&o, "fifo", in->Bool() ? 1 : 0);
  Opt(&o, "jitter_ns", 10 * in->Choice(0, 255));

  // Generate the plan, then let the remaining bytes drop ops from it.
  std::string serialized;
  stepflow::SimWorkloadPlan plan;
  if (!stepflow::GenerateSpecPlan(*spec, &serialized).ok() ||
      !plan.ParseFromString(serialized)) {
    return false;
  }
  std::vector<int> keep;
  uint8_t bits = 0;
  for (int i = 0; i < plan.ops_size(); ++i) {
    if (i % 8 == 0) bits = in->Byte();
    const bool drop = ((bits >> (i % 8)) & 1) != 0;
    if (!drop || !Droppable(plan.ops(i).kind())) keep.push_back(i);
  }
  stepflow::SimWorkloadPlan kept = plan;
  kept.clear_ops();
  for (int i : stepflow::WellFormedOps(plan, keep))
    *kept.add_ops() = plan.ops(i);
  spec->plan = kept.SerializeAsString();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  SimRunSpec spec;
  const bool multi_client = (in.Byte() & 1) != 0;
  spec.workload =
      multi_client ? stepflow::kMultiClientWorkload : stepflow::kLocalWorkload;
  uint64_t seed = 0;
  for (int i = 0; i < 8; ++i)
    seed |= static_cast<uint64_t>(in.Byte()) << (8 * i);
  spec.seed = seed;
  if (multi_client) {
    if (!DecodeMultiClient(&in, &spec)) return 0;
  } else {
    DecodeLocal(&in, &spec);
  }
  // Shows that the target catches bugs: STEPFLOW_SIM_FUZZ_PLANTED_BUG=
  // drop_recv (or early_graph_free) makes most inputs crash.
  static const char* const planted =
      std::getenv("STEPFLOW_SIM_FUZZ_PLANTED_BUG");
  if (planted != nullptr &&
      !stepflow::ParsePlantedBug(planted, &spec.planted_bug)) {
    std::fprintf(stderr, "unknown STEPFLOW_SIM_FUZZ_PLANTED_BUG '%s'\n",
                 planted);
    std::abort();
  }
  stepflow::SimRunResult result;
  const absl::Status s =
      stepflow::RunSimulation(spec, stepflow::SimRunConfig(), &result);
  if (absl::IsInvalidArgument(s)) return 0;
  if (!s.ok()) {
    std::fprintf(stderr, "simulation set-up failed: %s\n",
                 s.ToString().c_str());
    std::abort();
  }
  if (!result.failures.empty()) {
    std::fprintf(stderr, "%s seed %llu options {%s}: %zu invariant failures\n",
                 spec.workload.c_str(), static_cast<unsigned long long>(seed),
                 stepflow::FormatOptions(spec.options).c_str(),
                 result.failures.size());
    for (const stepflow::SimInvariantFailure& f : result.failures) {
      std::fprintf(stderr, "  [%s] %s\n", f.invariant.c_str(),
                   f.detail.c_str());
    }
    std::abort();
  }
  return 0;
}
