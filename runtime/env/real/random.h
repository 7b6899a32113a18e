// Production and seeded implementations of Random.
//
// SeededRandom: a xoshiro256** generator (runtime/env/xoshiro256.h) whose
// 256-bit state is expanded from a 64-bit seed with splitmix64. The same
// seed always yields the same sequence (on every platform), so tests can pin
// ids and incarnations.
// SystemRandom: a SeededRandom seeded once from the host's entropy source;
// what production main()s hand to the runtime.
//
// Thread-safety: New64() may be called from any thread; draws are
// serialised by an internal mutex (the sequence across threads is then the
// interleaving order).
#ifndef STEPFLOW_RUNTIME_ENV_REAL_RANDOM_H_
#define STEPFLOW_RUNTIME_ENV_REAL_RANDOM_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/random.h"
#include "runtime/env/xoshiro256.h"

namespace stepflow {

class SeededRandom : public Random {
 public:
  explicit SeededRandom(uint64_t seed);

  uint64_t New64() override;

 private:
  absl::Mutex mu_;
  Xoshiro256 generator_ ABSL_GUARDED_BY(mu_);
};

class SystemRandom : public SeededRandom {
 public:
  SystemRandom();
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_RANDOM_H_
