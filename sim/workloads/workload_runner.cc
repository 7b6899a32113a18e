#include "sim/workloads/workload_runner.h"

#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/workloads/distributed_workload.h"
#include "sim/workloads/local_workload.h"
#include "sim/workloads/multi_client_workload.h"

namespace stepflow {
namespace {

constexpr char kPlantedBugParam[] = "planted_bug";

TraceRecorder::Options RecorderOptions(const SimRunConfig& config) {
  TraceRecorder::Options o;
  o.keep_events = config.keep_events;
  o.observer = config.observer;
  return o;
}

// `spec` is what the header records (its options fully resolved where the
// workload can list them).
absl::Status OpenTrace(const SimRunConfig& config, const SimRunSpec& spec,
                       const std::string& plan, const std::string& description,
                       TraceRecorder* recorder) {
  if (config.trace_path.empty()) return absl::OkStatus();
  TraceHeader header = SpecTraceHeader(spec, plan);
  header.workload = description;
  return recorder->OpenFile(config.trace_path, header);
}

// Pins the run's invariant failures into its trace, so a replay that agrees
// event for event also reproduces them.
void RecordFailures(const std::vector<SimInvariantFailure>& failures,
                    int64_t now_nanos, TraceRecorder* recorder) {
  for (const SimInvariantFailure& f : failures) {
    TraceEvent e;
    e.time_nanos = now_nanos;
    e.kind = SIM_NOTE;
    e.task = "checker";
    e.fields = {{"event", "invariant_failure"},
                {"invariant", f.invariant},
                {"detail", f.detail}};
    recorder->Record(std::move(e));
  }
}

// InvalidArgument if a plan-free workload was given a plan.
absl::Status RejectPlan(const SimRunSpec& spec) {
  if (spec.plan.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the ", spec.workload,
                   " workload takes no plan (it is fully described "
                   "by its seed and options)"));
}

// Every workload's tail: the run's counts and the recorder's hash (and
// events) into `result`, then the trace file closed.
absl::Status FinishRun(const SimRunConfig& config, uint64_t events_run,
                       int64_t virtual_nanos, int steps_run, int ops_run,
                       TraceRecorder* recorder, SimRunResult* result) {
  result->trace_hash = recorder->hash();
  result->trace_events = recorder->event_count();
  result->events_run = events_run;
  result->virtual_nanos = virtual_nanos;
  result->steps_run = steps_run;
  result->ops_run = ops_run;
  if (config.keep_events) result->events = recorder->events();
  return recorder->Close();
}

absl::Status RunLocal(const SimRunSpec& spec, const SimRunConfig& config,
                      SimRunResult* result) {
  LocalWorkloadOptions options;
  absl::Status s = LocalWorkloadOptionsFromParams(spec.options, &options);
  if (s.ok()) s = RejectPlan(spec);
  if (!s.ok()) return s;
  TraceRecorder recorder(RecorderOptions(config));
  SimRunSpec resolved = spec;  // Every option, defaults included.
  resolved.options = LocalWorkloadParams(options);
  s = OpenTrace(config, resolved, "", DescribeLocalWorkload(options),
                &recorder);
  if (!s.ok()) return s;
  options.recorder = &recorder;
  LocalWorkloadResult r;
  s = RunLocalWorkload(spec.seed, options, &r);
  if (!s.ok()) return s;
  for (size_t i = 0; i < r.failures.size(); ++i) {
    result->failures.push_back(
        {i < r.failure_invariants.size() ? r.failure_invariants[i] : "values",
         r.failures[i]});
  }
  RecordFailures(result->failures, r.virtual_nanos, &recorder);
  return FinishRun(config, r.events_run, r.virtual_nanos, r.steps_run,
                   r.steps_run, &recorder, result);
}

absl::Status MultiClientOptionsFromParams(const TraceFields& params,
                                          MultiClientWorkloadOptions* generator,
                                          MultiClientRunOptions* run) {
  for (const auto& [key, value] : params) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(value, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("multi-client workload option ", key, ": '", value,
                       "' is not an integer"));
    }
    const bool nanos = absl::EndsWith(key, "_ns");
    if (!nanos && (v < -(int64_t{1} << 30) || v > (int64_t{1} << 30))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "multi-client workload option ", key, " out of range: ", v));
    }
    const int i = static_cast<int>(v);
    if (key == "min_graphs") {
      generator->min_graphs = i;
    } else if (key == "max_graphs") {
      generator->max_graphs = i;
    } else if (key == "min_clients") {
      generator->min_clients = i;
    } else if (key == "max_clients") {
      generator->max_clients = i;
    } else if (key == "min_ops_per_client") {
      generator->min_ops_per_client = i;
    } else if (key == "max_ops_per_client") {
      generator->max_ops_per_client = i;
    } else if (key == "max_dag_nodes") {
      generator->max_dag_nodes = i;
    } else if (key == "function_call_weight") {
      generator->function_call_weight = i;
    } else if (key == "slow_kernel_percent") {
      generator->slow_kernel_percent = i;
    } else if (key == "failing_kernel_percent") {
      generator->failing_kernel_percent = i;
    } else if (key == "timeout_percent") {
      generator->timeout_percent = i;
    } else if (key == "min_slow_ns") {
      generator->min_slow_nanos = v;
    } else if (key == "max_slow_ns") {
      generator->max_slow_nanos = v;
    } else if (key == "max_think_ns") {
      generator->max_think_nanos = v;
    } else if (key == "fifo") {
      run->loop.randomize_ties = v == 0;
    } else if (key == "latency_ns") {
      run->loop.schedule_latency_nanos = v;
    } else if (key == "jitter_ns") {
      run->loop.schedule_jitter_nanos = v;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown multi-client workload option '", key, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status MultiClientPlan(const SimRunSpec& spec,
                             const MultiClientWorkloadOptions& generator,
                             SimWorkloadPlan* plan) {
  if (spec.plan.empty())
    return GenerateMultiClientPlan(spec.seed, generator, plan);
  if (!plan->ParseFromString(spec.plan)) {
    return absl::InvalidArgumentError(
        "the multi-client workload plan does not parse");
  }
  if (plan->seed() != spec.seed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the plan is for seed ", plan->seed(), ", not ", spec.seed));
  }
  return absl::OkStatus();
}

absl::Status RunMultiClient(const SimRunSpec& spec, const SimRunConfig& config,
                            SimRunResult* result) {
  MultiClientWorkloadOptions generator;
  MultiClientRunOptions run;
  absl::Status s = MultiClientOptionsFromParams(spec.options, &generator, &run);
  if (!s.ok()) return s;
  SimWorkloadPlan plan;
  s = MultiClientPlan(spec, generator, &plan);
  if (!s.ok()) return s;
  result->plan = plan.SerializeAsString();

  // The workload records into its own recorder; its events are re-recorded
  // here behind this spec's header (same events, same hash), followed by
  // the failure notes.
  run.keep_events = true;
  MultiClientWorkloadResult r;
  s = RunMultiClientPlan(plan, run, &r);
  if (!s.ok()) return s;
  result->function_calls = r.function_calls;
  TraceRecorder recorder(RecorderOptions(config));
  s = OpenTrace(config, spec, result->plan,
                absl::StrCat("multi-client workload: ", plan.ops_size(),
                             " ops, ", plan.graphs_size(), " graphs, ",
                             plan.num_clients(), " clients"),
                &recorder);
  if (!s.ok()) return s;
  for (TraceEvent& e : r.events) recorder.Record(std::move(e));
  for (const InvariantViolation& v : r.violations) {
    result->failures.push_back({v.invariant, v.detail});
  }
  RecordFailures(result->failures, r.virtual_nanos, &recorder);
  return FinishRun(config, r.events_run, r.virtual_nanos, r.steps_run,
                   r.ops_run, &recorder, result);
}

absl::Status RunDistributed(const SimRunSpec& spec, const SimRunConfig& config,
                            SimRunResult* result) {
  DistributedWorkloadOptions options;
  absl::Status s = DistributedWorkloadOptionsFromParams(spec.options, &options);
  if (s.ok()) s = RejectPlan(spec);
  if (!s.ok()) return s;
  TraceRecorder recorder(RecorderOptions(config));
  SimRunSpec resolved = spec;  // Every option, defaults included.
  resolved.options = DistributedWorkloadParams(options);
  s = OpenTrace(config, resolved, "", "distributed workload", &recorder);
  if (!s.ok()) return s;
  options.recorder = &recorder;
  DistributedWorkloadResult r;
  s = RunDistributedWorkload(spec.seed, options, &r);
  if (!s.ok()) return s;
  // Violations are already pinned into the trace as they happen.
  for (const auto& [invariant, detail] : r.violations) {
    result->failures.push_back({invariant, detail});
  }
  return FinishRun(config, r.events_run, r.virtual_nanos, r.steps_run,
                   r.steps_run, &recorder, result);
}

}  // namespace

std::string CanonicalWorkloadName(const std::string& name) {
  return name == kMultiClientWorkloadAlias ? kMultiClientWorkload : name;
}

absl::Status RunSimulation(const SimRunSpec& spec, const SimRunConfig& config,
                           SimRunResult* result) {
  *result = SimRunResult();
  ScopedPlantedBug bug(spec.planted_bug);
  if (spec.workload == kLocalWorkload) return RunLocal(spec, config, result);
  if (spec.workload == kMultiClientWorkload) {
    return RunMultiClient(spec, config, result);
  }
  if (spec.workload == kDistributedWorkload) {
    return RunDistributed(spec, config, result);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown workload '", spec.workload, "' (expected '", kLocalWorkload,
      "', '", kMultiClientWorkload, "' or '", kDistributedWorkload, "')"));
}

absl::Status GenerateSpecPlan(const SimRunSpec& spec, std::string* plan) {
  if (spec.workload != kMultiClientWorkload) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload '", spec.workload, "' has no plan"));
  }
  MultiClientWorkloadOptions generator;
  MultiClientRunOptions run;
  absl::Status s = MultiClientOptionsFromParams(spec.options, &generator, &run);
  if (!s.ok()) return s;
  SimWorkloadPlan p;
  s = MultiClientPlan(spec, generator, &p);
  if (!s.ok()) return s;
  *plan = p.SerializeAsString();
  return absl::OkStatus();
}

TraceHeader SpecTraceHeader(const SimRunSpec& spec, const std::string& plan) {
  TraceHeader h;
  h.seed = spec.seed;
  h.workload = spec.workload;
  h.workload_name = spec.workload;
  h.params = spec.options;
  if (spec.planted_bug != PlantedBug::kNone) {
    h.params.emplace_back(kPlantedBugParam, PlantedBugName(spec.planted_bug));
  }
  h.plan = plan;
  return h;
}

absl::Status SpecFromTraceHeader(const TraceHeader& header, SimRunSpec* spec) {
  if (header.workload_name.empty()) {
    return absl::InvalidArgumentError(
        "the trace header names no workload (a trace written before replay "
        "support?)");
  }
  SimRunSpec out;
  out.workload = CanonicalWorkloadName(header.workload_name);
  out.seed = header.seed;
  out.plan = header.plan;
  for (const auto& [key, value] : header.params) {
    if (key == kPlantedBugParam) {
      if (!ParsePlantedBug(value.c_str(), &out.planted_bug)) {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown planted bug '", value, "' in trace header"));
      }
      continue;
    }
    out.options.emplace_back(key, value);
  }
  *spec = std::move(out);
  return absl::OkStatus();
}

std::vector<std::string> FailedInvariants(
    const std::vector<SimInvariantFailure>& failures) {
  std::set<std::string> names;
  for (const SimInvariantFailure& f : failures) names.insert(f.invariant);
  return std::vector<std::string>(names.begin(), names.end());
}

std::string FormatOptions(const TraceFields& options) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : options) {
    parts.push_back(absl::StrCat(key, "=", value));
  }
  return absl::StrJoin(parts, ",");
}

absl::Status ParseOptions(const std::string& text, TraceFields* options) {
  options->clear();
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '", part, "' is not key=value"));
    }
    options->emplace_back(std::string(part.substr(0, eq)),
                          std::string(part.substr(eq + 1)));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
