// Random kernels: RandomUniform, RandomStandardNormal, TruncatedNormal
// (half, bfloat16, float, double) and RandomUniformInt (int32, int64).
//
// Each kernel owns a GuardedPhiloxRandom keyed at construction by (seed,
// seed2), or by the device Env's random source when both are 0. Every
// Compute reserves a fresh range of the stream sized for its output (256
// blocks per value, as TensorFlow does), so successive runs of one kernel
// draw different numbers, and the same (seed, seed2) on a fresh kernel
// repeats them. Values are TensorFlow's for the same seeds
// (random_distributions.h).
//
// Errors (InvalidArgument naming the node): a shape that is not a 1-D
// int32/int64 vector of non-negative sizes; for RandomUniformInt, non-scalar
// bounds or minval >= maxval with a non-empty output.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/random_fill.h"
#include "runtime/kernels/random_op_util.h"

namespace stepflow {
namespace {

// Shared by all random kernels: attrs, the stream, the output.
class RandomOpBase : public OpKernel {
 public:
  explicit RandomOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

 protected:
  // Allocates output 0 with the shape from input 0.
  absl::Status AllocateOutput(OpKernelContext* ctx, Tensor** out) {
    TensorShape shape;
    absl::Status s = ShapeFromInput(*this, ctx->input(0), &shape);
    if (!s.ok()) return s;
    return ctx->allocate_output(0, shape, out);
  }

  GuardedPhiloxRandom generator_;
};

template <typename T, template <typename> class Dist>
class RandomFloatOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const PhiloxRandom base = generator_.ReserveBlocks(
        static_cast<uint64_t>(n) * kBlocksReservedPerValue);
    FillRandomGroups<T>(base, Dist<T>(), n, 0, RandomGroupCount<T>(n),
                        out->base<T>());
  }
};

#define SF_REGISTER_RANDOM(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("RandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),   \
      RandomFloatOp<T, UniformDist>);                                        \
  REGISTER_KERNEL_BUILDER(Name("RandomStandardNormal")                       \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("dtype"),                   \
                          RandomFloatOp<T, NormalDist>);                     \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("TruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      RandomFloatOp<T, TruncatedNormalDist>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_RANDOM)
#undef SF_REGISTER_RANDOM

template <typename T>
class RandomUniformIntOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    OP_REQUIRES(ctx, minval.dims() == 0,
                AttachDef(absl::InvalidArgumentError(
                              absl::StrCat("minval must be 0-D, got shape ",
                                           minval.shape().DebugString())),
                          name()));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                AttachDef(absl::InvalidArgumentError(
                              absl::StrCat("maxval must be 0-D, got shape ",
                                           maxval.shape().DebugString())),
                          name()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, &out));
    const uint64_t n = static_cast<uint64_t>(out->NumElements());
    if (n == 0) return;
    const T lo = minval.scalar<T>();
    const T hi = maxval.scalar<T>();
    OP_REQUIRES(ctx, lo < hi,
                AttachDef(absl::InvalidArgumentError(absl::StrCat(
                              "Need minval < maxval: ", lo, " >= ", hi)),
                          name()));
    const PhiloxRandom base =
        generator_.ReserveBlocks(n * kBlocksReservedPerValue);
    FillRandomGroups<T>(
        base, UniformIntDist<T>{lo, hi}, static_cast<int64_t>(n), 0,
        RandomGroupCount<T>(static_cast<int64_t>(n)), out->base<T>());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int32_t>("Tout"),
    RandomUniformIntOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("RandomUniformInt").Device(DEVICE_CPU).TypeConstraint<int64_t>("Tout"),
    RandomUniformIntOp<int64_t>);

}  // namespace
}  // namespace stepflow
