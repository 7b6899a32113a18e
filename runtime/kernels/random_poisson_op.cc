// RandomPoissonV2(shape, rate), rate R and output dtype each of half,
// float, double, int32, int64: shape + rate.shape samples, each
// Poisson(rate) for its rate (random_poisson.h), drawn by
// RandomParamSampleOp (random_param_sample_op.h) from the node's seeded
// stream; the values do not depend on the Scheduler's thread count.
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

}  // namespace
}  // namespace stepflow
