#include "sim/env/sim_random.h"

#include <utility>

#include "sim/trace/digest.h"

namespace stepflow {
namespace {

uint64_t SplitMix64Next(uint64_t* state) {
  *state += 0x9e3779b97f4a7c15ULL;
  return Mix64(*state);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Xoshiro256::Xoshiro256(uint64_t seed) {
  uint64_t sm = seed;
  for (uint64_t& word : s_) word = SplitMix64Next(&sm);
  // An all-zero state would be a fixed point; splitmix64 cannot produce
  // four zero outputs in a row, but keep the invariant explicit.
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

Xoshiro256::Xoshiro256(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3)
    : s_{s0, s1, s2, s3} {
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

uint64_t Xoshiro256::Next() {
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

class SimRandom::StreamRandom : public Random {
 public:
  explicit StreamRandom(uint64_t seed) : gen_(seed) {}

  uint64_t New64() override {
    absl::MutexLock l(&mu_);
    return gen_.Next();
  }

 private:
  absl::Mutex mu_;
  Xoshiro256 gen_ ABSL_GUARDED_BY(mu_);
};

SimRandom::SimRandom(uint64_t seed) : seed_(seed) {}
SimRandom::~SimRandom() = default;

uint64_t SimRandom::StreamSeed(uint64_t seed, absl::string_view name) {
  return Mix64(Mix64(seed) ^ Fnv1a64(name));
}

Random* SimRandom::Stream(absl::string_view name) {
  absl::MutexLock l(&mu_);
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    it = streams_
             .emplace(std::string(name),
                      std::make_unique<StreamRandom>(StreamSeed(seed_, name)))
             .first;
  }
  return it->second.get();
}

std::vector<std::string> SimRandom::StreamNames() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, stream] : streams_) names.push_back(name);
  return names;
}

}  // namespace stepflow
