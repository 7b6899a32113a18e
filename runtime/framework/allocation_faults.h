// AllocationFaults: decides whether a memory reservation fails although it
// fits its budget — the injected out-of-memory a fault-testing harness
// (the simulator) uses to stand for a real process's failed malloc.
//
// A MemoryBudget given one asks it before every reservation; a refused
// reservation is reported exactly like an exhausted budget (the allocation
// returns nullptr and the step fails with ResourceExhausted). Production
// processes never install one.
//
// Ownership: borrowed by the budgets that use it; must outlive them.
// Thread-safety: Refuse() may be called from any thread; implementations
// used outside the single-threaded simulator must be thread-safe.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATION_FAULTS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATION_FAULTS_H_

#include <cstdint>
#include <string>

namespace stepflow {

class AllocationFaults {
 public:
  virtual ~AllocationFaults() = default;
  // True to refuse reserving `bytes` from the budget named `budget`.
  virtual bool Refuse(const std::string& budget, int64_t bytes) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_ALLOCATION_FAULTS_H_
