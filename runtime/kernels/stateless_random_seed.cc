#include "runtime/kernels/stateless_random_seed.h"

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

}  // namespace

absl::Status GeneratorFromSeed(const Tensor& seed, PhiloxRandom* gen) {
  if (seed.dims() != 1 || seed.dim_size(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seed must have shape [2], not ", seed.shape().DebugString()));
  }
  uint64_t s0, s1;
  if (seed.dtype() == DT_INT32) {
    s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.base<int32_t>()[0]));
    s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.base<int32_t>()[1]));
  } else if (seed.dtype() == DT_INT64) {
    s0 = static_cast<uint64_t>(seed.base<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.base<int64_t>()[1]);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid seed type: ", DataTypeString(seed.dtype())));
  }
  const PhiloxRandom::Block mix = PhiloxRandom::Compute(
      PhiloxRandom::Counter{Lo(s0), Hi(s0), Lo(s1), Hi(s1)},
      PhiloxRandom::Key{0x3ec8f720u, 0x02461e29u});
  *gen = PhiloxRandom(PhiloxRandom::Counter{0, 0, mix[2], mix[3]},
                      PhiloxRandom::Key{mix[0], mix[1]});
  return absl::OkStatus();
}

absl::Status CheckKeyCounterAlg(const Tensor& key, const Tensor& counter,
                                const Tensor& alg, int32_t* id) {
  if (alg.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm must be of shape [], not ", alg.shape().DebugString()));
  }
  *id = alg.base<int32_t>()[0];
  if (*id == kRngAlgAutoSelect) *id = kRngAlgPhilox;
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("key must have shape [1], not ", key.shape().DebugString(),
                     ". (Note that batched keys are not supported yet.)"));
  }
  const int64_t counter_size = *id == kRngAlgThreeFry ? 1 : 2;
  if (counter.dims() != 1 || counter.dim_size(0) < counter_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "counter must be a vector with length at least ", counter_size,
        "; got shape: ", counter.shape().DebugString(),
        ". (Note that batched counters are not supported yet.)"));
  }
  return absl::OkStatus();
}

absl::Status PhiloxFromKeyCounter(int32_t id, const Tensor& key,
                                  const Tensor& counter, PhiloxRandom* gen) {
  if (id != kRngAlgPhilox) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unsupported algorithm id: ", id));
  }
  const uint64_t k = key.base<uint64_t>()[0];
  const uint64_t c0 = counter.base<uint64_t>()[0];
  const uint64_t c1 = counter.base<uint64_t>()[1];
  *gen = PhiloxRandom(PhiloxRandom::Counter{Lo(c0), Hi(c0), Lo(c1), Hi(c1)},
                      PhiloxRandom::Key{Lo(k), Hi(k)});
  return absl::OkStatus();
}

uint64_t KeyAsUint64(const PhiloxRandom& gen) {
  return static_cast<uint64_t>(gen.key()[1]) << 32 | gen.key()[0];
}

void CounterAsUint64(const PhiloxRandom& gen, uint64_t out[2]) {
  const PhiloxRandom::Counter& c = gen.counter();
  out[0] = static_cast<uint64_t>(c[1]) << 32 | c[0];
  out[1] = static_cast<uint64_t>(c[3]) << 32 | c[2];
}

}  // namespace stepflow
