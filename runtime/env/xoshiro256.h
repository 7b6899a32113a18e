// Xoshiro256: the xoshiro256** generator (Blackman & Vigna), its 256-bit
// state filled from a splitmix64 sequence started at a 64-bit seed. The one
// pseudo-random algorithm of the project: the real Env's SeededRandom
// (runtime/env/real/random.h) and the simulator's streams
// (sim/env/sim_random.h) both draw from it, so a seed means the same
// sequence everywhere, on every platform.
//
// A plain value with no entropy of its own (the seam allows it anywhere).
// Not thread-safe: owners serialise Next().
#ifndef STEPFLOW_RUNTIME_ENV_XOSHIRO256_H_
#define STEPFLOW_RUNTIME_ENV_XOSHIRO256_H_

#include <cstdint>

namespace stepflow {

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    uint64_t sm = seed;
    for (uint64_t& word : s_) word = SplitMix64(&sm);
    // An all-zero state would be a fixed point; splitmix64 cannot produce
    // four zero outputs in a row, but keep the invariant explicit.
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
  }
  // From an explicit state (not all zero), for known-answer tests.
  Xoshiro256(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3)
      : s_{s0, s1, s2, s3} {
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // One step of splitmix64: advances `*state` and returns its output.
  static uint64_t SplitMix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_XOSHIRO256_H_
