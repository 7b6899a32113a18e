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

namespace stepflow {
namespace {

template <typename Index>
absl::Status ReadShape(const Tensor& t, TensorShape* shape) {
  std::vector<int64_t> dims;
  auto v = t.flat<Index>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (v(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", v(i), " must be >= 0"));
    }
    dims.push_back(static_cast<int64_t>(v(i)));
  }
  return TensorShape::BuildTensorShape(dims, shape);
}

// The output shape from the `shape` input.
absl::Status ShapeFromInput(const OpKernel& op, const Tensor& t,
                            TensorShape* shape) {
  absl::Status s;
  if (t.dims() != 1) {
    s = absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of {int32,int64}, got shape ",
                     t.shape().DebugString()));
  } else if (t.dtype() == DT_INT32) {
    s = ReadShape<int32_t>(t, shape);
  } else if (t.dtype() == DT_INT64) {
    s = ReadShape<int64_t>(t, shape);
  } else {
    s = absl::InvalidArgumentError(absl::StrCat(
        "shape must be int32 or int64, got ", DataTypeString(t.dtype())));
  }
  if (s.ok()) return s;
  // Whatever ReadShape's code, a bad shape input is InvalidArgument.
  return AttachDef(absl::InvalidArgumentError(s.message()), op.name());
}

// Shared by all random kernels: attrs, the stream, the output.
class RandomOpBase : public OpKernel {
 public:
  explicit RandomOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0, seed2 = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2));
    Env* env = ctx->env();
    OP_REQUIRES_OK(
        ctx,
        generator_.Init(seed, seed2, env != nullptr ? env->random : nullptr));
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

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

template <typename T, Distribution kDist>
class RandomFloatOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, &out));
    const uint64_t n = static_cast<uint64_t>(out->NumElements());
    if (n == 0) return;
    const PhiloxRandom base =
        generator_.ReserveBlocks(n * kBlocksReservedPerValue);
    constexpr int kGroup = kGroupSize<T>;
    T* data = out->base<T>();
    T group[kGroup];
    PhiloxRandom blocks = base;
    for (uint64_t start = 0, g = 0; start < n; start += kGroup, ++g) {
      if (kDist == Distribution::kUniform) {
        UniformGroup<T>(blocks(), group);
      } else if (kDist == Distribution::kNormal) {
        NormalGroup<T>(blocks(), group);
      } else {
        PhiloxRandom gen = base;
        gen.Skip(g * kTruncatedSkip<T>);
        RandomWordStream words(gen);
        TruncatedNormalGroup<T>(&words, group);
      }
      const uint64_t count = std::min<uint64_t>(kGroup, n - start);
      std::copy(group, group + count, data + start);
    }
  }
};

#define SF_REGISTER_RANDOM(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("RandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),   \
      RandomFloatOp<T, Distribution::kUniform>);                             \
  REGISTER_KERNEL_BUILDER(Name("RandomStandardNormal")                       \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("dtype"),                   \
                          RandomFloatOp<T, Distribution::kNormal>);          \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("TruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      RandomFloatOp<T, Distribution::kTruncatedNormal>);
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
    PhiloxRandom blocks = generator_.ReserveBlocks(n * kBlocksReservedPerValue);
    constexpr int kGroup = kGroupSize<T>;
    T* data = out->base<T>();
    T group[kGroup];
    for (uint64_t start = 0; start < n; start += kGroup) {
      UniformIntGroup<T>(blocks(), lo, hi, group);
      std::copy(group, group + std::min<uint64_t>(kGroup, n - start),
                data + start);
    }
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
