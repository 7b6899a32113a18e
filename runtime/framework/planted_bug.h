// Planted bugs: deliberate, named defects that the simulator's invariant
// checkers must catch. Test-only and off by default; nothing in production
// enables one.
//
// A simulation runner enables at most one bug for the duration of a run
// with ScopedPlantedBug, selecting it by name (ParsePlantedBug). The runtime
// code paths that carry a bug ask PlantedBugActive() and misbehave in a
// way that is observable but never undefined behaviour:
//   kDropRecv        IntraProcessRendezvous::Send drops the first value
//                    sent on each rendezvous (the Send reports OK), so the
//                    matching Recv is never satisfied.
//   kEarlyGraphFree  TF_DeleteGraph counts the graph as freed
//                    (TF_TestOnlyLiveGraphCount drops) even while sessions
//                    still hold it; the memory itself stays valid and is
//                    released later exactly as without the bug.
//   kSkipCleanupGraph The distributed master never sends CleanupGraph
//                    when a step ends, so workers keep the step's state.
//   kSwappedSub      The CPU Sub kernel computes y - x instead of x - y:
//                    a kernel bug for the TensorFlow differential tests.
//
// Thread-safety: the switch is a process-wide atomic. Enabling a bug
// affects every runtime object in the process, so only single-threaded
// simulations and tests may do it, and must restore kNone afterwards.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_PLANTED_BUG_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_PLANTED_BUG_H_

namespace stepflow {

enum class PlantedBug : int {
  kNone = 0,
  kDropRecv = 1,
  kEarlyGraphFree = 2,
  kSkipCleanupGraph = 3,
  kSwappedSub = 4,
};

// "none", "drop_recv", "early_graph_free", "skip_cleanup_graph",
// "swapped_sub".
const char* PlantedBugName(PlantedBug bug);
// Parses a name above; false for anything else ("" is not a name).
bool ParsePlantedBug(const char* name, PlantedBug* bug);

// The bug enabled now (kNone unless a test enabled one).
PlantedBug ActivePlantedBug();
inline bool PlantedBugActive(PlantedBug bug) {
  return bug != PlantedBug::kNone && ActivePlantedBug() == bug;
}

// Enables `bug` (kNone disables) until destroyed, then restores the
// previous setting.
class ScopedPlantedBug {
 public:
  explicit ScopedPlantedBug(PlantedBug bug);
  ~ScopedPlantedBug();
  ScopedPlantedBug(const ScopedPlantedBug&) = delete;
  ScopedPlantedBug& operator=(const ScopedPlantedBug&) = delete;

 private:
  const PlantedBug previous_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_PLANTED_BUG_H_
