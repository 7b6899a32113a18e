// Where a stateless random op's Philox stream starts: a pure function of
// its inputs, so the same inputs always draw the same values.
//
// From a `seed` input (shape [2], int32 or int64: seed0, seed1): the 128-bit
// counter (seed0, seed1) is scrambled by one Philox block under the fixed
// key (0x3ec8f720, 0x02461e29); the block's first two words become the key
// and its last two the counter's upper half (the lower half starts at 0).
// This is TensorFlow's derivation, so a seed draws TensorFlow's values.
//
// From (key, counter, alg) inputs (the V2 ops): alg is 1 (Philox) or 3
// (auto-select, Philox on CPU); key is a uint64 [1], counter a uint64
// vector of at least 2 (Philox's 128 bits, low word first).
//
// Errors: InvalidArgument for malformed inputs or (once values are to be
// drawn) an algorithm other than Philox.
#ifndef STEPFLOW_RUNTIME_KERNELS_STATELESS_RANDOM_SEED_H_
#define STEPFLOW_RUNTIME_KERNELS_STATELESS_RANDOM_SEED_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/philox_random.h"

namespace stepflow {

// Algorithm ids of the V2 ops' `alg` input.
enum RngAlgorithm : int32_t {
  kRngAlgPhilox = 1,
  kRngAlgThreeFry = 2,
  kRngAlgAutoSelect = 3,
};

// The stream for a [2] int32/int64 `seed` tensor.
absl::Status GeneratorFromSeed(const Tensor& seed, PhiloxRandom* gen);

// Checks the V2 ops' key, counter and alg inputs' shapes and returns the
// algorithm (auto-select resolved to Philox). An unknown id is not an
// error here: it is one only when something is drawn (PhiloxFromKeyCounter).
absl::Status CheckKeyCounterAlg(const Tensor& key, const Tensor& counter,
                                const Tensor& alg, int32_t* id);

// The stream for checked key and counter inputs; InvalidArgument unless
// `id` is Philox.
absl::Status PhiloxFromKeyCounter(int32_t id, const Tensor& key,
                                  const Tensor& counter, PhiloxRandom* gen);

// The key ([1]) and counter ([2]) uint64 tensors' values for `gen`.
uint64_t KeyAsUint64(const PhiloxRandom& gen);
void CounterAsUint64(const PhiloxRandom& gen, uint64_t out[2]);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_STATELESS_RANDOM_SEED_H_
