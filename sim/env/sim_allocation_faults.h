// SimAllocationFaults: the simulator's injected out-of-memory. While armed,
// each device reservation fails with probability per_mille/1000, drawn
// from its own seeded stream, so a seed fixes which allocations fail and
// no other subsystem's draws shift. Each refusal is traced (SIM_FAULT
// {fault=alloc, budget, bytes}); zero-byte reservations never fail.
//
// Ownership: the loop and random are borrowed and must outlive this.
// Thread-safety: none — the simulator's one thread.
#ifndef STEPFLOW_SIM_ENV_SIM_ALLOCATION_FAULTS_H_
#define STEPFLOW_SIM_ENV_SIM_ALLOCATION_FAULTS_H_

#include <cstdint>
#include <string>

#include "runtime/env/random.h"
#include "runtime/framework/allocation_faults.h"
#include "sim/env/event_loop.h"

namespace stepflow {

class SimAllocationFaults : public AllocationFaults {
 public:
  SimAllocationFaults(SimEventLoop* loop, Random* random, int per_mille)
      : loop_(loop), random_(random), per_mille_(per_mille) {}

  bool Refuse(const std::string& budget, int64_t bytes) override;

  // Faults happen only while armed (the chaos phase); disarmed at first.
  void set_armed(bool armed) { armed_ = armed; }
  int64_t refused() const { return refused_; }

 private:
  SimEventLoop* const loop_;
  Random* const random_;
  const int per_mille_;
  bool armed_ = false;
  int64_t refused_ = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_ENV_SIM_ALLOCATION_FAULTS_H_
