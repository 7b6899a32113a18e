// Gamma(alpha, 1) samples drawn as TensorFlow's RandomGamma CPU kernel
// draws them, so a seeded stream yields TensorFlow's values (up to the
// platform libm's log, log1p, pow and sqrt).
//
// Outputs are numbered alpha-major: output i is sample i % samples_per_alpha
// of alpha i / samples_per_alpha, stored at
// (i % samples_per_alpha) * num_alphas + i / samples_per_alpha (the samples'
// shape followed by alpha's). Output i draws from the stream skipped by
// 256 * i blocks, so any split of [0, n) across threads gives the same
// values.
//
// alpha == 1: -log1p(-u) for one uniform double u. Otherwise Marsaglia and
// Tsang's method with d = alpha - 1/3 (alpha + 2/3 below 1), c = 1/(3
// sqrt(d)): repeat { x normal; v = 1 + c x, redrawn while v <= 0; v = v^3;
// u uniform; accept d v if u < 1 - 0.0331 x^4 or log u < x^2/2 + d (1 - v +
// log v) }, and below 1 multiply by b^(1/alpha) for one more uniform b.
// Normals and uniforms are doubles drawn two per block from the same
// stream (DoubleDraws). Not validated: alpha <= 0 or NaN give whatever the
// arithmetic gives (NaN, 0 or inf), as in TensorFlow.
//
// Thread-safe for disjoint output ranges.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_GAMMA_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_GAMMA_H_

#include <cmath>
#include <cstdint>

#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"

namespace stepflow {

// One Gamma(alpha, 1) sample from `gen`.
inline double GammaSample(double alpha, PhiloxRandom* gen) {
  DoubleDraws<UniformGroup<double>> uniform;
  if (alpha == 1.0) return -std::log1p(-uniform.Next(gen));
  DoubleDraws<NormalGroup<double>> normal;
  const bool boost = alpha < 1;
  const double d = alpha + (boost ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  for (;;) {
    const double x = normal.Next(gen);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform.Next(gen);
    if (u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      double res = d * v;
      if (boost) res *= std::pow(uniform.Next(gen), 1 / alpha);
      return res;
    }
  }
}

// Writes outputs [begin, end) of a gamma draw over `num_alphas` alphas and
// `samples_per_alpha` samples each, from the stream starting at `base`.
template <typename T>
void SampleGamma(const PhiloxRandom& base, const T* alpha, int64_t num_alphas,
                 int64_t samples_per_alpha, int64_t begin, int64_t end,
                 T* out) {
  for (int64_t i = begin; i < end; ++i) {
    const int64_t a = i / samples_per_alpha;
    const int64_t s = i % samples_per_alpha;
    PhiloxRandom gen = base;
    gen.Skip(static_cast<uint64_t>(i) * kBlocksReservedPerValue);
    out[s * num_alphas + a] =
        static_cast<T>(GammaSample(static_cast<double>(alpha[a]), &gen));
  }
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_GAMMA_H_
