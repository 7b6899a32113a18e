// Poisson(rate) samples drawn as TensorFlow's RandomPoisson CPU kernels
// draw them, so a seeded stream yields TensorFlow's values (up to the
// platform libm's exp, log, sqrt and lgamma). Arithmetic is in double.
//
// Outputs are numbered rate-major, as for RandomGamma (random_gamma.h):
// output i is sample i % samples_per_rate of rate i / samples_per_rate,
// stored at (i % samples_per_rate) * num_rates + i / samples_per_rate, and
// draws from the stream skipped by 256 * i blocks.
//
// rate < 10 (negative and zero included): Knuth's method, the count of
// uniform doubles multiplied before the product falls to exp(-rate) (capped
// at the output type's largest value). rate = +inf: the output type's
// infinity (0 for integers). Otherwise Hormann's transformed rejection
// (PTRS) with b = 0.931 + 2.53 sqrt(rate), a = -0.059 + 0.02483 b, two
// uniforms per attempt, candidates beyond the output type's range redrawn.
// A NaN rate never terminates in TensorFlow's kernel; here it yields NaN
// (0 for integers) instead.
//
// Thread-safe for disjoint output ranges.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_POISSON_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_POISSON_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"

namespace stepflow {

// One Poisson(rate) sample from `gen`, below `highest` (the output type's
// largest value).
inline double PoissonSample(double rate, double highest, PhiloxRandom* gen) {
  DoubleDraws<UniformGroup<double>> uniform;
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1;
    double x = 0;
    for (;;) {
      prod = prod * uniform.Next(gen);
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double v_r = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = uniform.Next(gen) - 0.5;
    const double v = uniform.Next(gen);
    const double u_shifted = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;
    if (u_shifted >= 0.07 && v <= v_r) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s =
        std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// Writes outputs [begin, end) of a Poisson draw over `num_rates` rates and
// `samples_per_rate` samples each, from the stream starting at `base`.
template <typename R, typename U>
void SamplePoisson(const PhiloxRandom& base, const R* rates, int64_t num_rates,
                   int64_t samples_per_rate, int64_t begin, int64_t end,
                   U* out) {
  const double highest = static_cast<double>(std::numeric_limits<U>::max());
  for (int64_t i = begin; i < end; ++i) {
    const int64_t r = i / samples_per_rate;
    const int64_t s = i % samples_per_rate;
    const double rate = static_cast<double>(rates[r]);
    U value;
    if (std::isinf(rate) && rate > 0) {
      value = std::numeric_limits<U>::has_infinity
                  ? std::numeric_limits<U>::infinity()
                  : U(0);
    } else if (std::isnan(rate)) {
      value = std::numeric_limits<U>::has_quiet_NaN
                  ? std::numeric_limits<U>::quiet_NaN()
                  : U(0);
    } else {
      PhiloxRandom gen = base;
      gen.Skip(static_cast<uint64_t>(i) * kBlocksReservedPerValue);
      value = static_cast<U>(PoissonSample(rate, highest, &gen));
    }
    out[s * num_rates + r] = value;
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_POISSON_H_
