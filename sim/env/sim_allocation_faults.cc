#include "sim/env/sim_allocation_faults.h"

#include "absl/strings/str_cat.h"

namespace stepflow {

bool SimAllocationFaults::Refuse(const std::string& budget, int64_t bytes) {
  if (!armed_ || bytes <= 0 || per_mille_ <= 0) return false;
  if (random_->Uniform(1000) >= static_cast<uint64_t>(per_mille_)) {
    return false;
  }
  ++refused_;
  loop_->Trace(
      SIM_FAULT, "memory",
      {{"fault", "alloc"}, {"budget", budget}, {"bytes", absl::StrCat(bytes)}});
  return true;
}

}  // namespace stepflow
