// SimRandom: the simulator's seeded randomness, split into named streams.
//
// Stream(name) returns a generator whose sequence depends only on (seed,
// name): the name is hashed with a fixed, unsalted FNV-1a (sim/digest.h),
// mixed with the seed, and expanded into an xoshiro256** state. Drawing
// from one stream never shifts another, so adding a draw in one subsystem
// (say, fault injection) leaves every other subsystem's choices — and the
// interleavings they cause — unchanged. Conventional names: "scheduler"
// (the event loop's same-time choices), "runtime" (the Env's Random:
// step ids, incarnations), "workload" (the driver's inputs).
//
// Ownership: streams are owned by the SimRandom and live as long as it;
// Stream() called twice with one name returns the same object (continuing
// its sequence, not restarting it).
// Thread-safety: Stream() and every stream's New64() are thread-safe (the
// Random contract); determinism of course needs a deterministic caller.
#ifndef STEPFLOW_SIM_SIM_RANDOM_H_
#define STEPFLOW_SIM_SIM_RANDOM_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/random.h"
#include "runtime/env/xoshiro256.h"

namespace stepflow {

class SimRandom {
 public:
  explicit SimRandom(uint64_t seed);
  SimRandom(const SimRandom&) = delete;
  SimRandom& operator=(const SimRandom&) = delete;
  ~SimRandom();

  uint64_t seed() const { return seed_; }

  // The generator for `name` (created on first use). Never null.
  Random* Stream(absl::string_view name);

  // The seed a stream named `name` starts from under `seed`.
  static uint64_t StreamSeed(uint64_t seed, absl::string_view name);

  // Names of the streams created so far, sorted.
  std::vector<std::string> StreamNames() const;

 private:
  class StreamRandom;

  const uint64_t seed_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<StreamRandom>, std::less<>> streams_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_RANDOM_H_
