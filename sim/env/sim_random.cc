#include "sim/env/sim_random.h"

#include <utility>

#include "sim/trace/digest.h"

namespace stepflow {
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
