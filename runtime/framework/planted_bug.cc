#include "runtime/framework/planted_bug.h"

#include <atomic>
#include <cstring>

namespace stepflow {
namespace {

std::atomic<int>& Active() {
  static std::atomic<int> active{static_cast<int>(PlantedBug::kNone)};
  return active;
}

constexpr PlantedBug kAll[] = {
    PlantedBug::kNone, PlantedBug::kDropRecv, PlantedBug::kEarlyGraphFree,
    PlantedBug::kSkipCleanupGraph, PlantedBug::kSwappedSub};

}  // namespace

const char* PlantedBugName(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kNone:
      return "none";
    case PlantedBug::kDropRecv:
      return "drop_recv";
    case PlantedBug::kEarlyGraphFree:
      return "early_graph_free";
    case PlantedBug::kSkipCleanupGraph:
      return "skip_cleanup_graph";
    case PlantedBug::kSwappedSub:
      return "swapped_sub";
  }
  return "unknown";
}

bool ParsePlantedBug(const char* name, PlantedBug* bug) {
  if (name == nullptr) return false;
  for (PlantedBug b : kAll) {
    if (std::strcmp(name, PlantedBugName(b)) == 0) {
      *bug = b;
      return true;
    }
  }
  return false;
}

PlantedBug ActivePlantedBug() {
  return static_cast<PlantedBug>(Active().load(std::memory_order_relaxed));
}

ScopedPlantedBug::ScopedPlantedBug(PlantedBug bug)
    : previous_(ActivePlantedBug()) {
  Active().store(static_cast<int>(bug), std::memory_order_relaxed);
}

ScopedPlantedBug::~ScopedPlantedBug() {
  Active().store(static_cast<int>(previous_), std::memory_order_relaxed);
}

}  // namespace stepflow
