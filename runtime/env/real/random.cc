#include "runtime/env/real/random.h"

#include <random>

namespace stepflow {
namespace {

uint64_t EntropySeed() {
  std::random_device rd;
  uint64_t hi = rd();
  uint64_t lo = rd();
  return (hi << 32) ^ lo;
}

}  // namespace

SeededRandom::SeededRandom(uint64_t seed) : generator_(seed) {}

uint64_t SeededRandom::New64() {
  absl::MutexLock l(&mu_);
  return generator_.Next();
}

SystemRandom::SystemRandom() : SeededRandom(EntropySeed()) {}

}  // namespace stepflow
