// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC'11), a counter-based generator: block i of a stream
// is a pure function of (key, counter i), so a stream can be split into
// disjoint ranges without generating the skipped part.
//
// Stream layout used by the seeded random kernels: key = seed (64 bits),
// counter = (block index: 64 bits, seed2: 64 bits). Each block is four 32-bit
// words. The stateless kernels start from an arbitrary 128-bit counter
// (stateless_random_seed.h); skipping carries across all 128 bits.
//
// GuardedPhiloxRandom is a kernel's stream: each Compute reserves the next
// range of blocks under a mutex (the stream advances per invocation). Its
// key comes from (seed, seed2) when either is nonzero, otherwise from the
// injected Env random at kernel construction, so runs are reproducible from
// a seed in simulation.
//
// PhiloxRandom is a value type (not thread-safe); GuardedPhiloxRandom is
// thread-safe.
#ifndef STEPFLOW_RUNTIME_KERNELS_PHILOX_RANDOM_H_
#define STEPFLOW_RUNTIME_KERNELS_PHILOX_RANDOM_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/env/random.h"

namespace stepflow {

class PhiloxRandom {
 public:
  using Block = std::array<uint32_t, 4>;
  using Counter = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  // The ten-round Philox4x32 bijection of `counter` under `key`.
  static Block Compute(Counter counter, Key key);

  PhiloxRandom() : PhiloxRandom(0, 0) {}
  PhiloxRandom(uint64_t seed, uint64_t seed2);
  PhiloxRandom(Counter counter, Key key) : key_(key), counter_(counter) {}

  const Key& key() const { return key_; }
  const Counter& counter() const { return counter_; }

  // The next block of the stream.
  Block operator()();
  // Skips `blocks` blocks (the 128-bit counter advances, with carry).
  void Skip(uint64_t blocks);
  // Index of the next block (the counter's low 64 bits).
  uint64_t position() const;

 private:
  Key key_;
  Counter counter_;
};

class GuardedPhiloxRandom {
 public:
  GuardedPhiloxRandom() = default;
  GuardedPhiloxRandom(const GuardedPhiloxRandom&) = delete;
  GuardedPhiloxRandom& operator=(const GuardedPhiloxRandom&) = delete;

  // Keys the stream with (seed, seed2) if either is nonzero, otherwise with
  // two draws from `random`. FailedPrecondition if both seeds are 0 and
  // `random` is null.
  absl::Status Init(int64_t seed, int64_t seed2, Random* random);

  // A generator at the start of the next `blocks` unused blocks.
  PhiloxRandom ReserveBlocks(uint64_t blocks);

 private:
  absl::Mutex mu_;
  PhiloxRandom generator_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_PHILOX_RANDOM_H_
