// The random samplers: TensorFlow's values for fixed seeds, the stateless
// seed derivation, the 128-bit counter carry, sampler edge cases, and
// values that do not depend on how many threads fill an output.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/env/notification.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_fill.h"
#include "runtime/kernels/random_gamma.h"
#include "runtime/kernels/random_poisson.h"
#include "runtime/kernels/sharded_op_kernel.h"
#include "runtime/kernels/stateless_random_seed.h"

namespace stepflow {
namespace {

PhiloxRandom SeededStream(int64_t s0, int64_t s1) {
  Tensor seed(DT_INT64, TensorShape({2}));
  seed.base<int64_t>()[0] = s0;
  seed.base<int64_t>()[1] = s1;
  PhiloxRandom gen;
  EXPECT_TRUE(GeneratorFromSeed(seed, &gen).ok());
  return gen;
}

TEST(StatelessSeedTest, KeyAndCounterAreTensorFlows) {
  const PhiloxRandom gen = SeededStream(1, 2);
  EXPECT_EQ(KeyAsUint64(gen), 10413732777507651514ull);
  uint64_t counter[2];
  CounterAsUint64(gen, counter);
  EXPECT_EQ(counter[0], 0u);
  EXPECT_EQ(counter[1], 17830669156045600267ull);
}

TEST(StatelessSeedTest, UniformValuesAreTensorFlows) {
  float out[6];
  FillRandomGroups<float>(SeededStream(1, 2), UniformDist<float>(), 6, 0, 2,
                          out);
  const float want[6] = {0.8440604209899902f,  0.19204533100128174f,
                         0.9962232112884521f,  0.16038739681243896f,
                         0.27199018001556396f, 0.6493459939956665f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
  uint64_t full[3];
  FillRandomGroups<uint64_t>(SeededStream(1, 2), FullIntDist<uint64_t>(), 3, 0,
                             2, full);
  EXPECT_EQ(full[0], 7464880146280614444ull);
  EXPECT_EQ(full[1], 1591045637757961278ull);
  EXPECT_EQ(full[2], 17389275318164050067ull);
}

TEST(StatelessSeedTest, RejectsMalformedInputs) {
  PhiloxRandom gen;
  Tensor bad_seed(DT_INT64, TensorShape({3}));
  EXPECT_EQ(GeneratorFromSeed(bad_seed, &gen).code(),
            absl::StatusCode::kInvalidArgument);
  Tensor key(DT_UINT64, TensorShape({1}));
  Tensor counter(DT_UINT64, TensorShape({2}));
  Tensor alg(DT_INT32, TensorShape({}));
  key.base<uint64_t>()[0] = 1;
  counter.base<uint64_t>()[0] = counter.base<uint64_t>()[1] = 0;
  int32_t id = 0;
  for (int32_t bad : {0, static_cast<int>(kRngAlgThreeFry), 4}) {
    alg.base<int32_t>()[0] = bad;
    ASSERT_TRUE(CheckKeyCounterAlg(key, counter, alg, &id).ok());
    EXPECT_EQ(PhiloxFromKeyCounter(id, key, counter, &gen).code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  for (RngAlgorithm good : {kRngAlgPhilox, kRngAlgAutoSelect}) {
    alg.base<int32_t>()[0] = good;
    ASSERT_TRUE(CheckKeyCounterAlg(key, counter, alg, &id).ok());
    EXPECT_TRUE(PhiloxFromKeyCounter(id, key, counter, &gen).ok());
  }
  Tensor short_counter(DT_UINT64, TensorShape({1}));
  EXPECT_EQ(CheckKeyCounterAlg(key, short_counter, alg, &id).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PhiloxSkipTest, CarriesIntoTheUpperCounterHalf) {
  PhiloxRandom gen(
      PhiloxRandom::Counter{0xffffffffu, 0xffffffffu, 0xffffffffu, 7},
      PhiloxRandom::Key{1, 2});
  gen.Skip(2);
  const PhiloxRandom::Counter want{1, 0, 0, 8};
  EXPECT_EQ(gen.counter(), want);
}

TEST(GammaSampleTest, EdgeCases) {
  PhiloxRandom gen(3, 4);
  // alpha == 0 multiplies by u^inf.
  EXPECT_EQ(GammaSample(0.0, &gen), 0.0);
  PhiloxRandom gen2(3, 4);
  const double tiny = GammaSample(1e-3, &gen2);
  EXPECT_GE(tiny, 0.0);
  EXPECT_LT(tiny, 1e-3);
  PhiloxRandom gen3(3, 4);
  EXPECT_TRUE(std::isnan(GammaSample(std::nan(""), &gen3)));
}

TEST(GammaSampleTest, ValuesAreTensorFlows) {
  // RandomGamma(shape=[3], alpha=[0.5, 1, 3], seed=1, seed2=2) in double.
  const double alpha[3] = {0.5, 1.0, 3.0};
  double out[9];
  SampleGamma<double>(PhiloxRandom(1, 2), alpha, 3, 3, 0, 9, out);
  const double want[9] = {
      0.014439557851346523, 0.33404184509665735, 2.6026473641788757,
      0.19106529193912436,  0.2716996159318356,  4.272954229798829,
      0.1917163381668231,   0.9651606253869844,  1.7649690635071953};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(out[i], want[i], 1e-15) << i;
}

TEST(PoissonSampleTest, EdgeCasesAndTensorFlowsValues) {
  const double rate[2] = {0.5, 30.0};
  int64_t out[6];
  SamplePoisson<double, int64_t>(PhiloxRandom(1, 2), rate, 2, 3, 0, 6, out);
  const int64_t want[6] = {0, 26, 1, 25, 0, 32};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;

  const float odd[4] = {-3.0f, 0.0f, INFINITY, NAN};
  float f[4];
  int32_t k[4];
  SamplePoisson<float, float>(PhiloxRandom(5, 6), odd, 4, 1, 0, 4, f);
  SamplePoisson<float, int32_t>(PhiloxRandom(5, 6), odd, 4, 1, 0, 4, k);
  EXPECT_EQ(f[0], 0.0f);
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_EQ(f[2], INFINITY);
  EXPECT_TRUE(std::isnan(f[3]));
  EXPECT_EQ(k[2], 0);
  EXPECT_EQ(k[3], 0);
}

// Runs fn over [0, units) on `threads` threads (1: inline).
void RunOnThreads(int threads, int64_t units,
                  std::function<void(int64_t, int64_t)> fn) {
  ShardedWork work;
  work.units = units;
  work.cost_per_unit = kMinBlockCost;
  work.fn = std::move(fn);
  if (threads == 1) {
    RunSharded(nullptr, work, [] {});
    return;
  }
  SystemClock clock;
  auto scheduler = std::make_unique<ThreadPoolScheduler>(threads, &clock);
  Notification finished;
  RunSharded(scheduler.get(), work, [&] { finished.Notify(); });
  scheduler->WaitFor(&finished);
}

TEST(ThreadCountTest, ValuesDoNotDependOnThreads) {
  constexpr int64_t kSamples = 37;
  const std::vector<double> alpha = {0.3, 1.0, 2.5, 9.0};
  const std::vector<float> rate = {0.7f, 9.5f, 10.0f, 250.0f};
  const int64_t n = kSamples * 4;
  const PhiloxRandom base(11, 12);
  std::vector<std::vector<double>> gamma(2, std::vector<double>(n));
  std::vector<std::vector<int64_t>> poisson(2, std::vector<int64_t>(n));
  std::vector<std::vector<float>> truncated(2, std::vector<float>(1001));
  int run = 0;
  for (int threads : {1, 4}) {
    double* g = gamma[run].data();
    RunOnThreads(threads, n, [&](int64_t b, int64_t e) {
      SampleGamma<double>(base, alpha.data(), 4, kSamples, b, e, g);
    });
    int64_t* p = poisson[run].data();
    RunOnThreads(threads, n, [&](int64_t b, int64_t e) {
      SamplePoisson<float, int64_t>(base, rate.data(), 4, kSamples, b, e, p);
    });
    float* t = truncated[run].data();
    RunOnThreads(threads, RandomGroupCount<float>(1001),
                 [&](int64_t b, int64_t e) {
                   FillRandomGroups<float>(base, TruncatedNormalDist<float>(),
                                           1001, b, e, t);
                 });
    ++run;
  }
  EXPECT_EQ(gamma[0], gamma[1]);
  EXPECT_EQ(poisson[0], poisson[1]);
  EXPECT_EQ(truncated[0], truncated[1]);
}

}  // namespace
}  // namespace stepflow
