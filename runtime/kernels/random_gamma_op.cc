// RandomGamma(shape, alpha) for half, float and double: shape + alpha.shape
// samples, each Gamma(alpha, 1) for its alpha (random_gamma.h), drawn by
// RandomParamSampleOp (random_param_sample_op.h) from the node's seeded
// stream; the values do not depend on the Scheduler's thread count.
#include "runtime/kernels/random_gamma.h"
#include "runtime/kernels/random_param_sample_op.h"

namespace stepflow {
namespace {

#define SF_REGISTER_GAMMA(T)                                         \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("RandomGamma").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      RandomParamSampleOp<T, T, SampleGamma<T>>);
SF_REGISTER_GAMMA(half)
SF_REGISTER_GAMMA(float)
SF_REGISTER_GAMMA(double)
#undef SF_REGISTER_GAMMA

}  // namespace
}  // namespace stepflow
