#include "runtime/kernels/philox_random.h"

namespace stepflow {
namespace {

constexpr uint32_t kMultiplier0 = 0xD2511F53;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57;
constexpr uint32_t kKeyBump0 = 0x9E3779B9;  // Golden ratio.
constexpr uint32_t kKeyBump1 = 0xBB67AE85;  // sqrt(3) - 1.
constexpr int kRounds = 10;

inline void MulHiLo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

}  // namespace

PhiloxRandom::Block PhiloxRandom::Compute(Counter c, Key k) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      k[0] += kKeyBump0;
      k[1] += kKeyBump1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    MulHiLo(kMultiplier0, c[0], &hi0, &lo0);
    MulHiLo(kMultiplier1, c[2], &hi1, &lo1);
    c = Counter{hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

PhiloxRandom::PhiloxRandom(uint64_t seed, uint64_t seed2)
    : key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
      counter_{0, 0, static_cast<uint32_t>(seed2),
               static_cast<uint32_t>(seed2 >> 32)} {}

uint64_t PhiloxRandom::position() const {
  return static_cast<uint64_t>(counter_[1]) << 32 | counter_[0];
}

void PhiloxRandom::Skip(uint64_t blocks) {
  const uint64_t low = position();
  const uint64_t next = low + blocks;
  counter_[0] = static_cast<uint32_t>(next);
  counter_[1] = static_cast<uint32_t>(next >> 32);
  if (next < low && ++counter_[2] == 0) ++counter_[3];  // Carry.
}

PhiloxRandom::Block PhiloxRandom::operator()() {
  Block out = Compute(counter_, key_);
  Skip(1);
  return out;
}

absl::Status GuardedPhiloxRandom::Init(int64_t seed, int64_t seed2,
                                       Random* random) {
  uint64_t s = static_cast<uint64_t>(seed);
  uint64_t s2 = static_cast<uint64_t>(seed2);
  if (s == 0 && s2 == 0) {
    if (random == nullptr) {
      return absl::FailedPreconditionError(
          "seed and seed2 are both 0, so the key must come from the Env's "
          "random source, but the device's Env has none");
    }
    s = random->New64();
    s2 = random->New64();
  }
  absl::MutexLock l(&mu_);
  generator_ = PhiloxRandom(s, s2);
  return absl::OkStatus();
}

PhiloxRandom GuardedPhiloxRandom::ReserveBlocks(uint64_t blocks) {
  absl::MutexLock l(&mu_);
  PhiloxRandom reserved = generator_;
  generator_.Skip(blocks);
  return reserved;
}

}  // namespace stepflow
