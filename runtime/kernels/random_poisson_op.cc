// RandomPoissonV2(shape, rate), rate R and output dtype each of half,
// float, double, int32, int64, and its predecessor RandomPoisson (rate and
// output of one type): shape + rate.shape samples, each Poisson(rate) for
// its rate (random_poisson.h), drawn by RandomParamSampleOp
// (random_param_sample_op.h) from the node's seeded stream; the values do
// not depend on the Scheduler's thread count.
#include <cstdint>

#include "runtime/kernels/random_param_sample_op.h"
#include "runtime/kernels/random_poisson.h"

namespace stepflow {
namespace {

#define SF_REGISTER_POISSON(R, U)                          \
  REGISTER_KERNEL_BUILDER(Name("RandomPoissonV2")          \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<R>("R")      \
                              .TypeConstraint<U>("dtype"), \
                          RandomParamSampleOp<R, U, SamplePoisson<R, U>>);
#define SF_REGISTER_POISSON_RATE(R) \
  SF_REGISTER_POISSON(R, half)      \
  SF_REGISTER_POISSON(R, float)     \
  SF_REGISTER_POISSON(R, double)    \
  SF_REGISTER_POISSON(R, int32_t)   \
  SF_REGISTER_POISSON(R, int64_t)
SF_REGISTER_POISSON_RATE(half)
SF_REGISTER_POISSON_RATE(float)
SF_REGISTER_POISSON_RATE(double)
SF_REGISTER_POISSON_RATE(int32_t)
SF_REGISTER_POISSON_RATE(int64_t)
#undef SF_REGISTER_POISSON_RATE
#undef SF_REGISTER_POISSON

// RandomPoisson, RandomPoissonV2's predecessor (TensorFlow refuses it in
// GraphDefs from version 25 on): rate and output of one type.
#define SF_REGISTER_POISSON_V1(T)                                          \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("RandomPoisson").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      RandomParamSampleOp<T, T, SamplePoisson<T, T>>);
SF_REGISTER_POISSON_V1(half)
SF_REGISTER_POISSON_V1(float)
SF_REGISTER_POISSON_V1(double)
#undef SF_REGISTER_POISSON_V1

}  // namespace
}  // namespace stepflow
