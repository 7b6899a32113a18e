#include "sim/check/distributed_shrink.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/workloads/distributed_workload.h"

namespace stepflow {
namespace {

struct Simplification {
  std::string name;
  // Applies itself; false when it would change nothing.
  std::function<bool(DistributedWorkloadOptions*)> apply;
};

std::vector<Simplification> Simplifications() {
  auto set_int = [](int DistributedWorkloadOptions::*field, int value) {
    return [field, value](DistributedWorkloadOptions* o) {
      if (o->*field <= value) return false;
      o->*field = value;
      return true;
    };
  };
  auto clear = [](bool DistributedWorkloadOptions::*field) {
    return [field](DistributedWorkloadOptions* o) {
      if (!(o->*field)) return false;
      o->*field = false;
      return true;
    };
  };
  using O = DistributedWorkloadOptions;
  return {
      {"one client",
       [](O* o) {
         if (o->max_clients <= 1) return false;
         o->min_clients = o->max_clients = 1;
         return true;
       }},
      {"two workers",
       [](O* o) {
         if (o->max_workers <= 2) return false;
         o->min_workers = o->max_workers = 2;
         return true;
       }},
      {"one worker",
       [](O* o) {
         if (o->max_workers <= 1) return false;
         o->min_workers = o->max_workers = 1;
         return true;
       }},
      {"one step", set_int(&O::steps_per_client, 1)},
      {"two steps", set_int(&O::steps_per_client, 2)},
      {"half the steps",
       [](O* o) {
         if (o->steps_per_client <= 2) return false;
         o->steps_per_client /= 2;
         return true;
       }},
      {"no fault events", set_int(&O::faults, 0)},
      {"no partial runs", set_int(&O::partial_run_percent, 0)},
      {"one fault event", set_int(&O::faults, 1)},
      {"no crashes", clear(&O::crashes)},
      {"no partitions", clear(&O::partitions)},
      {"no clogs", clear(&O::clogs)},
      {"no hung workers", clear(&O::hangs)},
      {"no master crashes", clear(&O::master_crashes)},
      {"no allocation faults", set_int(&O::alloc_fault_per_mille, 0)},
      {"no memory budgets", set_int(&O::budget_percent, 0)},
      {"every step with a timeout", set_int(&O::no_timeout_percent, 0)},
      {"no broken connections", set_int(&O::drop_per_mille, 0)},
      {"no duplicates", set_int(&O::duplicate_per_mille, 0)},
      {"one CPU per worker", set_int(&O::max_cpus, 1)},
      {"smallest graph",
       [](O* o) {
         if (o->max_nodes <= 2 && o->min_nodes <= 2) return false;
         o->min_nodes = o->max_nodes = 2;
         return true;
       }},
      {"smaller graph",
       [](O* o) {
         if (o->max_nodes <= o->min_nodes) return false;
         o->max_nodes = o->min_nodes;
         return true;
       }},
  };
}

// Runs `spec`; true (with the detail) when it fails `invariant`.
bool Fails(const SimRunSpec& spec, const std::string& invariant,
           std::string* detail, int* runs) {
  ++*runs;
  SimRunResult r;
  if (!RunSimulation(spec, SimRunConfig(), &r).ok()) return false;
  for (const SimInvariantFailure& f : r.failures) {
    if (f.invariant == invariant) {
      *detail = f.detail;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::Status ShrinkDistributedRun(const SimRunSpec& spec,
                                  const std::string& invariant, int max_runs,
                                  DistributedShrinkResult* result) {
  *result = DistributedShrinkResult();
  if (spec.workload != kDistributedWorkload) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot shrink a '", spec.workload, "' run as a distributed one"));
  }
  DistributedWorkloadOptions options;
  absl::Status s = DistributedWorkloadOptionsFromParams(spec.options, &options);
  if (!s.ok()) return s;
  result->spec = spec;
  result->invariant = invariant;
  if (!Fails(spec, invariant, &result->failure_detail, &result->runs)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed ", spec.seed, " does not fail '", invariant,
                     "': nothing to shrink"));
  }
  const std::vector<Simplification> all = Simplifications();
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Simplification& simp : all) {
      if (result->runs >= max_runs) {
        result->hit_run_limit = true;
        return absl::OkStatus();
      }
      DistributedWorkloadOptions candidate = options;
      if (!simp.apply(&candidate)) continue;
      SimRunSpec trial = spec;
      trial.options = DistributedWorkloadParams(candidate);
      std::string detail;
      if (!Fails(trial, invariant, &detail, &result->runs)) continue;
      options = candidate;
      result->spec = trial;
      result->failure_detail = detail;
      result->kept.push_back(simp.name);
      changed = true;
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
