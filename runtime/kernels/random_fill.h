// Filling an output from a Philox stream in TensorFlow's group layout, so a
// value depends only on its index and the stream's start, never on how the
// output is split across threads.
//
// An output of n values of T is cut into groups of kGroupSize<T> values;
// group g is computed by a distribution from a generator positioned
// g * Dist::kBlocksPerGroup blocks after the start. Fixed-size
// distributions (uniform, normal, integers) use one block per group; the
// truncated normal, which draws a variable number of words, gets
// kTruncatedSkip<T> blocks per group.
//
// A distribution is a value type with
//   static constexpr uint64_t kBlocksPerGroup;
//   void operator()(PhiloxRandom* gen, T out[kGroupSize<T>]) const;
// FillRandomGroups is thread-safe for disjoint group ranges of one output.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_FILL_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_FILL_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"

namespace stepflow {

template <typename T>
struct UniformDist {
  static constexpr uint64_t kBlocksPerGroup = 1;
  void operator()(PhiloxRandom* gen, T* out) const {
    UniformGroup<T>((*gen)(), out);
  }
};

template <typename T>
struct NormalDist {
  static constexpr uint64_t kBlocksPerGroup = 1;
  void operator()(PhiloxRandom* gen, T* out) const {
    NormalGroup<T>((*gen)(), out);
  }
};

template <typename T>
struct TruncatedNormalDist {
  static constexpr uint64_t kBlocksPerGroup = kTruncatedSkip<T>;
  void operator()(PhiloxRandom* gen, T* out) const {
    RandomWordStream words(*gen);
    TruncatedNormalGroup<T>(&words, out);
  }
};

// Integers in [lo, hi); requires lo < hi.
template <typename T>
struct UniformIntDist {
  static constexpr uint64_t kBlocksPerGroup = 1;
  T lo, hi;
  void operator()(PhiloxRandom* gen, T* out) const {
    UniformIntGroup<T>((*gen)(), lo, hi, out);
  }
};

// Every bit pattern of T: one word per 32-bit value, two (low word first)
// per 64-bit value.
template <typename T>
struct FullIntDist {
  static constexpr uint64_t kBlocksPerGroup = 1;
  void operator()(PhiloxRandom* gen, T* out) const {
    using U = typename std::make_unsigned<T>::type;
    const PhiloxRandom::Block b = (*gen)();
    for (int i = 0; i < kGroupSize<T>; ++i) {
      out[i] = static_cast<T>(BlockBits<U>(b, i));
    }
  }
};

// The number of groups of an output of n values of T.
template <typename T>
int64_t RandomGroupCount(int64_t n) {
  return (n + kGroupSize<T> - 1) / kGroupSize<T>;
}

// Writes groups [begin, end) of an n-value output `data` drawn by `dist`
// from the stream starting at `base`.
template <typename T, typename Dist>
void FillRandomGroups(const PhiloxRandom& base, const Dist& dist, int64_t n,
                      int64_t begin, int64_t end, T* data) {
  constexpr int kGroup = kGroupSize<T>;
  T values[kGroup];
  PhiloxRandom gen = base;
  gen.Skip(static_cast<uint64_t>(begin) * Dist::kBlocksPerGroup);
  for (int64_t g = begin; g < end; ++g) {
    PhiloxRandom at = gen;
    dist(&at, values);
    gen.Skip(Dist::kBlocksPerGroup);
    const int64_t start = g * kGroup;
    std::copy(values, values + std::min<int64_t>(kGroup, n - start),
              data + start);
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_FILL_H_
