// Binomial(count, prob) samples drawn as TensorFlow's binomial CPU kernels
// draw them, so a seeded stream yields TensorFlow's values (up to the
// platform libm's log, log1p and sqrt). Arithmetic is in double except the
// choice of method, made in the parameters' type T as TensorFlow makes it.
//
// Outputs are numbered batch-major: output i is sample i % per_batch of
// batch member i / per_batch, stored at
// (i % per_batch) * num_batches + i / per_batch. count <= 0 or prob <= 0
// gives 0, prob >= 1 gives count, a NaN prob NaN. Otherwise, with p the
// smaller of prob and 1 - prob (the sample then taken from count): if
// count * p >= 10 (in T), Hormann's BTRS transformed rejection from the
// stream skipped by 256 * i blocks (two uniform doubles per attempt);
// else inversion, counting geometric(p) variates (one uniform double each)
// until their sum exceeds count, from the stream skipped by 42 * i blocks.
//
// Thread-safe for disjoint output ranges.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_BINOMIAL_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_BINOMIAL_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"

namespace stepflow {

// log(k!) minus its Stirling approximation (k + 1/2) log(k + 1) - (k + 1) +
// log(2 pi)/2: tabulated below 10, a truncated series above.
inline double StirlingTail(double k) {
  static constexpr double kSmall[10] = {
      0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
      0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
      0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
      0.00833056343336287};
  if (k <= 9) return kSmall[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// The number of geometric(prob) variates whose sum stays within count.
inline double BinomialInversion(double count, double prob, PhiloxRandom* gen) {
  DoubleDraws<UniformGroup<double>> uniform;
  double geom_sum = 0;
  int num_geom = 0;
  for (;;) {
    const double u = uniform.Next(gen);
    geom_sum += std::ceil(std::log(u) / std::log1p(-prob));
    if (geom_sum > count) return num_geom;
    ++num_geom;
  }
}

// Hormann's BTRS for count * prob >= 10 (prob <= 1/2).
inline double BinomialBtrs(double count, double prob, PhiloxRandom* gen) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  DoubleDraws<UniformGroup<double>> uniform;
  for (;;) {
    double u = uniform.Next(gen);
    double v = uniform.Next(gen);
    u = u - 0.5;
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound =
        ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + StirlingTail(m) +
         StirlingTail(count - m) - StirlingTail(k) - StirlingTail(count - k));
    if (v <= bound) return k;
  }
}

// One sample for (count, prob) of type T, output i of the stream at `base`.
template <typename T>
double BinomialSample(T count, T prob, const PhiloxRandom& base, int64_t i) {
  const double dcount = static_cast<double>(count);
  const bool flip = prob > T(0.5);
  if (dcount <= 0.0 || prob <= T(0)) return 0.0;
  if (prob >= T(1)) return dcount;
  if (!(prob <= T(0.5)) && !flip) return std::nan("");
  const T p = flip ? T(T(1) - prob) : prob;
  PhiloxRandom gen = base;
  double k;
  if (static_cast<T>(count * p) >= T(10)) {
    gen.Skip(static_cast<uint64_t>(i) * 256);
    k = BinomialBtrs(dcount, static_cast<double>(p), &gen);
  } else {
    gen.Skip(static_cast<uint64_t>(i) * 42);
    k = BinomialInversion(dcount, static_cast<double>(p), &gen);
  }
  return flip ? dcount - k : k;
}

// Writes outputs [begin, end); count_index[b] and prob_index[b] locate
// batch member b's parameters.
template <typename T, typename U>
void SampleBinomial(const PhiloxRandom& base, const T* counts, const T* probs,
                    const std::vector<int64_t>& count_index,
                    const std::vector<int64_t>& prob_index, int64_t per_batch,
                    int64_t begin, int64_t end, U* out) {
  const int64_t num_batches = static_cast<int64_t>(count_index.size());
  for (int64_t i = begin; i < end; ++i) {
    const int64_t b = i / per_batch;
    const double v = BinomialSample<T>(counts[count_index[b]],
                                       probs[prob_index[b]], base, i);
    U value;
    if constexpr (std::numeric_limits<U>::is_integer) {
      // NaN converts as the x86 conversion does: the most negative value.
      value = std::isnan(v) ? std::numeric_limits<U>::min() : static_cast<U>(v);
    } else {
      value = static_cast<U>(v);
    }
    out[(i % per_batch) * num_batches + b] = value;
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_BINOMIAL_H_
