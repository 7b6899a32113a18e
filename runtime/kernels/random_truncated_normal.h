// ParameterizedTruncatedNormal's sampler: normals with a per-batch mean and
// standard deviation conditioned on [minval, maxval], drawn as TensorFlow's
// CPU kernel draws them (arithmetic in T, groups of kGroupSize<T> uniforms
// or normals per Philox block), so a seeded stream yields TensorFlow's
// values (up to the platform libm's exp, log and sqrt).
//
// The output is num_batches batches of per_batch values (the last may be
// short), laid out as TruncatedNormalLayout says; batch b uses its
// BatchParam values. Batches read one stream in order. Per batch, bounds are
// normalised (flipped so the one-sided or nearer bound is the lower one) and
// one of three samplers chosen: normals rejected outside the bounds when
// the mean sits at least 1.3 deviations inside one of them; uniform
// proposals on [lo, hi] accepted with probability exp((lo+^2 - z^2) / 2)
// when the interval is narrower than a cutoff; otherwise exponential
// proposals offset by the lower bound.
//
// Errors: InvalidArgument when a batch's stddev <= 0, minval >= maxval or
// both bounds are infinite; Internal when a sampler rejects 1000 proposals
// in a row. Not thread-safe (one stream read in order).
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_TRUNCATED_NORMAL_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_TRUNCATED_NORMAL_H_

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace stepflow {

// Proposals a sampler may reject in a row before giving up.
inline constexpr int kTruncatedNormalMaxIterations = 1000;

// One parameter array: `data` of `size` elements; batch b reads
// data[index[b]] when `index` is set (broadcasting), else data[0] when
// size is 1, else data[b].
template <typename T>
struct BatchParam {
  const T* data;
  int64_t size;
  const int64_t* index = nullptr;
  T at(int64_t b) const {
    return data[index != nullptr ? index[b] : (size == 1 ? 0 : b)];
  }
};

// Where batch b's values go: sample s of batch b (s < min(per_batch,
// n - b * per_batch)) is out[b * batch_stride + s * sample_stride].
struct TruncatedNormalLayout {
  int64_t num_batches;
  int64_t per_batch;
  int64_t n;
  int64_t batch_stride;
  int64_t sample_stride;
};

template <typename T>
absl::Status SampleParameterizedTruncatedNormal(
    PhiloxRandom gen, const TruncatedNormalLayout& layout, BatchParam<T> means,
    BatchParam<T> stddevs, BatchParam<T> minvals, BatchParam<T> maxvals,
    T* out) {
  using Eigen::numext::exp;
  using Eigen::numext::isfinite;
  using Eigen::numext::isinf;
  using Eigen::numext::log;
  using Eigen::numext::sqrt;
  constexpr int kGroup = kGroupSize<T>;
  constexpr int kMax = kTruncatedNormalMaxIterations;
  const T kInside = T(1.3);
  T z[kGroup], g[kGroup], rand[kGroup], u[kGroup];
  for (int64_t b = 0; b < layout.num_batches; ++b) {
    const T mean = means.at(b);
    T stddev = stddevs.at(b);
    T minval = minvals.at(b);
    T maxval = maxvals.at(b);
    const int64_t limit =
        std::min(layout.per_batch, layout.n - b * layout.per_batch);
    T* const batch_out = out + b * layout.batch_stride;
    const int64_t stride = layout.sample_stride;
    int64_t sample = 0;
    if (!(stddev > T(0) && minval < maxval &&
          (isfinite(minval) || isfinite(maxval)))) {
      return absl::InvalidArgumentError("Invalid parameters");
    }
    int iterations = 0;
    if ((isinf(minval) && minval < T(0)) || maxval < mean) {
      std::swap(minval, maxval);
      stddev = -stddev;
    }
    const T norm_min = (minval - mean) / stddev;
    const T norm_max = (maxval - mean) / stddev;
    const T sqrt_factor = sqrt((norm_min * norm_min) + T(4));
    const T cutoff =
        T(2) * exp(T(0.5) + (norm_min * (norm_min - sqrt_factor)) / T(4)) /
        (norm_min + sqrt_factor);
    const T diff = norm_max - norm_min;
    if (((norm_min < -kInside) && (norm_max >= T(0))) ||
        ((norm_max > kInside) && (norm_min <= T(0)))) {
      while (sample < limit) {
        NormalGroup<T>(gen(), rand);
        for (int i = 0; i < kGroup; ++i) {
          if (rand[i] >= norm_min && rand[i] <= norm_max) {
            batch_out[stride * sample++] = rand[i] * stddev + mean;
            if (sample >= limit) break;
            iterations = 0;
          } else if (++iterations > kMax) {
            return absl::InternalError(
                "TruncatedNormal randn rejection sampler failed to accept a "
                "sample.");
          }
        }
      }
    } else if (diff < cutoff) {
      const T plus = norm_min < T(0) ? T(0) : norm_min * norm_min;
      while (sample < limit) {
        UniformGroup<T>(gen(), rand);
        for (int i = 0; i < kGroup; ++i) z[i] = rand[i] * diff + norm_min;
        for (int i = 0; i < kGroup; ++i) g[i] = (plus - z[i] * z[i]) / T(2.0);
        UniformGroup<T>(gen(), u);
        for (int i = 0; i < kGroup; ++i) {
          const bool accept = u[i] <= exp(g[i]);
          if (accept || iterations + 1 >= kMax) {
            if (!accept) {
              return absl::InternalError(
                  "TruncatedNormal uniform rejection sampler failed to accept "
                  "a sample.");
            }
            batch_out[stride * sample++] = z[i] * stddev + mean;
            if (sample >= limit) break;
            iterations = 0;
          } else {
            ++iterations;
          }
        }
      }
    } else {
      const T alpha = (norm_min + sqrt((norm_min * norm_min) + T(4))) / T(2);
      while (sample < limit) {
        UniformGroup<T>(gen(), rand);
        for (int i = 0; i < kGroup; i += 2) {
          const T zi = -log(rand[i]) / alpha + norm_min;
          const T x = norm_min < alpha ? alpha - zi : norm_min - alpha;
          const T gi = exp(-x * x / T(2.0));
          const bool accept = rand[i + 1] <= gi && zi < norm_max;
          if (accept || iterations + 1 >= kMax) {
            if (!accept) {
              return absl::InternalError(
                  "TruncatedNormal exponential distribution rejection sampler "
                  "failed to accept a sample.");
            }
            batch_out[stride * sample++] = zi * stddev + mean;
            if (sample >= limit) break;
            iterations = 0;
          } else {
            ++iterations;
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_TRUNCATED_NORMAL_H_
