// Stateless random kernels: StatelessRandomUniform, StatelessRandomNormal,
// StatelessTruncatedNormal (half, bfloat16, float, double),
// StatelessRandomUniformInt (int32, int64), StatelessRandomUniformFullInt
// (int32, int64, uint32, uint64), their V2 forms taking (key, counter, alg)
// instead of a seed,
// StatelessRandomGammaV2/V3 (half, float, double), StatelessRandomPoisson
// (lam and output each of half, float, double, int32, int64),
// StatelessRandomBinomial (counts and probs half, float or double; output
// half, float, double, int32, int64), and
// StatelessRandomGetKeyCounter, StatelessRandomGetAlg,
// StatelessRandomGetKeyCounterAlg.
//
// The output is a pure function of the inputs: the stream starts where
// stateless_random_seed.h says and values are laid out in groups
// (random_fill.h), so they are TensorFlow's for the same seed and do not
// depend on how many Scheduler threads fill the groups.
//
// Errors (InvalidArgument naming the node): a malformed shape, seed, key,
// counter or alg (an algorithm other than Philox only when values are to be
// drawn); with a non-empty output, for the bounded-integer ops non-scalar
// bounds or minval >= maxval, for gamma and Poisson an output shape that
// does not end with the parameters' shape; for the binomial, counts and
// probs that do not broadcast or an output shape not ending with theirs.
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/bcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/random_binomial.h"
#include "runtime/kernels/random_fill.h"
#include "runtime/kernels/random_gamma.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/random_param_sample_op.h"
#include "runtime/kernels/random_poisson.h"
#include "runtime/kernels/sharded_op_kernel.h"
#include "runtime/kernels/stateless_random_seed.h"

namespace stepflow {
namespace {

// Input layout: the seed form has (shape, seed, ...), the V2 form (shape,
// key, counter, alg, ...).
enum class SeedForm { kSeed, kKeyCounterAlg };

template <SeedForm kForm>
constexpr int kFirstParamInput = kForm == SeedForm::kSeed ? 2 : 4;

// Checks the inputs, allocates the output and hands the fill to Schedule.
template <SeedForm kForm>
class StatelessRandomOpBase : public ShardedOpKernel {
 public:
  using ShardedOpKernel::ShardedOpKernel;

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) final {
    int32_t alg = kRngAlgPhilox;
    if constexpr (kForm == SeedForm::kSeed) {
      const Tensor& seed = ctx->input(1);
      OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                  NodeInvalidArgument(ctx, "seed must have shape [2], not ",
                                      seed.shape().DebugString()));
    } else {
      absl::Status s =
          CheckKeyCounterAlg(ctx->input(1), ctx->input(2), ctx->input(3), &alg);
      OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    PhiloxRandom gen;
    absl::Status s =
        kForm == SeedForm::kSeed
            ? GeneratorFromSeed(ctx->input(1), &gen)
            : PhiloxFromKeyCounter(alg, ctx->input(1), ctx->input(2), &gen);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    Schedule(ctx, gen, out, work);
  }

  // Fills `out` (non-empty) from `gen` through `work`.
  virtual void Schedule(OpKernelContext* ctx, const PhiloxRandom& gen,
                        Tensor* out, ShardedWork* work) = 0;

  // The work of filling `out` with `dist`'s groups.
  template <typename T, typename Dist>
  static void FillWork(const PhiloxRandom& gen, const Dist& dist, Tensor* out,
                       int64_t cost_per_group, ShardedWork* work) {
    const int64_t n = out->NumElements();
    T* data = out->base<T>();
    work->units = RandomGroupCount<T>(n);
    work->cost_per_unit = cost_per_group;
    work->fn = [gen, dist, n, data](int64_t begin, int64_t end) {
      FillRandomGroups<T>(gen, dist, n, begin, end, data);
    };
  }
};

template <typename T, template <typename> class Dist, SeedForm kForm>
class StatelessRandomFloatOp : public StatelessRandomOpBase<kForm> {
 public:
  using StatelessRandomOpBase<kForm>::StatelessRandomOpBase;

 protected:
  void Schedule(OpKernelContext*, const PhiloxRandom& gen, Tensor* out,
                ShardedWork* work) override {
    this->template FillWork<T>(gen, Dist<T>(), out, 64, work);
  }
};

template <typename T, SeedForm kForm>
class StatelessRandomUniformIntOp : public StatelessRandomOpBase<kForm> {
 public:
  using StatelessRandomOpBase<kForm>::StatelessRandomOpBase;

 protected:
  void Schedule(OpKernelContext* ctx, const PhiloxRandom& gen, Tensor* out,
                ShardedWork* work) override {
    const Tensor& minval = ctx->input(kFirstParamInput<kForm>);
    const Tensor& maxval = ctx->input(kFirstParamInput<kForm> + 1);
    OP_REQUIRES(ctx, minval.dims() == 0,
                NodeInvalidArgument(ctx, "minval must be 0-D, got shape ",
                                    minval.shape().DebugString()));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                NodeInvalidArgument(ctx, "maxval must be 0-D, got shape ",
                                    maxval.shape().DebugString()));
    const T lo = minval.base<T>()[0];
    const T hi = maxval.base<T>()[0];
    OP_REQUIRES(
        ctx, lo < hi,
        NodeInvalidArgument(ctx, "Need minval < maxval: ", lo, " >= ", hi));
    this->template FillWork<T>(gen, UniformIntDist<T>{lo, hi}, out, 16, work);
  }
};

template <typename T, SeedForm kForm>
class StatelessRandomUniformFullIntOp : public StatelessRandomOpBase<kForm> {
 public:
  using StatelessRandomOpBase<kForm>::StatelessRandomOpBase;

 protected:
  void Schedule(OpKernelContext*, const PhiloxRandom& gen, Tensor* out,
                ShardedWork* work) override {
    this->template FillWork<T>(gen, FullIntDist<T>(), out, 16, work);
  }
};

#define SF_REGISTER_STATELESS_FLOAT(T)                                   \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("StatelessRandomUniform")                                     \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("dtype"),                                   \
      StatelessRandomFloatOp<T, UniformDist, SeedForm::kSeed>);          \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("StatelessRandomNormal")                                      \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("dtype"),                                   \
      StatelessRandomFloatOp<T, NormalDist, SeedForm::kSeed>);           \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("StatelessTruncatedNormal")                                   \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("dtype"),                                   \
      StatelessRandomFloatOp<T, TruncatedNormalDist, SeedForm::kSeed>);  \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("StatelessRandomUniformV2")                                   \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("dtype"),                                   \
      StatelessRandomFloatOp<T, UniformDist, SeedForm::kKeyCounterAlg>); \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("StatelessRandomNormalV2")                                    \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("dtype"),                                   \
      StatelessRandomFloatOp<T, NormalDist, SeedForm::kKeyCounterAlg>);  \
  REGISTER_KERNEL_BUILDER(Name("StatelessTruncatedNormalV2")             \
                              .Device(DEVICE_CPU)                        \
                              .TypeConstraint<T>("dtype"),               \
                          StatelessRandomFloatOp<T, TruncatedNormalDist, \
                                                 SeedForm::kKeyCounterAlg>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_STATELESS_FLOAT)
#undef SF_REGISTER_STATELESS_FLOAT

#define SF_REGISTER_STATELESS_FULL_INT(T)                   \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("StatelessRandomUniformFullInt")                 \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("dtype"),                      \
      StatelessRandomUniformFullIntOp<T, SeedForm::kSeed>); \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("StatelessRandomUniformFullIntV2")               \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("dtype"),                      \
      StatelessRandomUniformFullIntOp<T, SeedForm::kKeyCounterAlg>);
SF_REGISTER_STATELESS_FULL_INT(int32_t)
SF_REGISTER_STATELESS_FULL_INT(int64_t)
SF_REGISTER_STATELESS_FULL_INT(uint32_t)
SF_REGISTER_STATELESS_FULL_INT(uint64_t)
#undef SF_REGISTER_STATELESS_FULL_INT

#define SF_REGISTER_STATELESS_INT(T)                                        \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformInt")                 \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("dtype"),                  \
                          StatelessRandomUniformIntOp<T, SeedForm::kSeed>); \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("StatelessRandomUniformIntV2")                                   \
          .Device(DEVICE_CPU)                                               \
          .TypeConstraint<T>("dtype"),                                      \
      StatelessRandomUniformIntOp<T, SeedForm::kKeyCounterAlg>);
SF_REGISTER_STATELESS_INT(int32_t)
SF_REGISTER_STATELESS_INT(int64_t)
#undef SF_REGISTER_STATELESS_INT

// StatelessRandomGammaV2 (seed), StatelessRandomGammaV3 (key, counter,
// alg) and StatelessRandomPoisson (seed): the output's shape ends with the
// parameters' (alpha, lam) shape; values drawn by kSampler
// (random_gamma.h, random_poisson.h).
template <typename P, typename U, ParamSampler<P, U> kSampler, SeedForm kForm>
class StatelessParamSampleOp : public StatelessRandomOpBase<kForm> {
 public:
  using StatelessRandomOpBase<kForm>::StatelessRandomOpBase;

 protected:
  void Schedule(OpKernelContext* ctx, const PhiloxRandom& gen, Tensor* out,
                ShardedWork* work) override {
    const Tensor& params = ctx->input(kFirstParamInput<kForm>);
    OP_REQUIRES(ctx, EndsWith(out->shape(), params.shape()),
                NodeInvalidArgument(
                    ctx, "Shape passed in must end with broadcasted shape."));
    SetParamSampleWork<P, U>(kSampler, gen, params, out, work);
  }
};

#define SF_REGISTER_STATELESS_GAMMA(T)                                \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("StatelessRandomGammaV2")                                  \
          .Device(DEVICE_CPU)                                         \
          .TypeConstraint<T>("dtype"),                                \
      StatelessParamSampleOp<T, T, SampleGamma<T>, SeedForm::kSeed>); \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("StatelessRandomGammaV3")                                  \
          .Device(DEVICE_CPU)                                         \
          .TypeConstraint<T>("dtype"),                                \
      StatelessParamSampleOp<T, T, SampleGamma<T>, SeedForm::kKeyCounterAlg>);
SF_REGISTER_STATELESS_GAMMA(half)
SF_REGISTER_STATELESS_GAMMA(float)
SF_REGISTER_STATELESS_GAMMA(double)
#undef SF_REGISTER_STATELESS_GAMMA

#define SF_REGISTER_STATELESS_POISSON(R, U) \
  REGISTER_KERNEL_BUILDER(                  \
      Name("StatelessRandomPoisson")        \
          .Device(DEVICE_CPU)               \
          .TypeConstraint<R>("Rtype")       \
          .TypeConstraint<U>("dtype"),      \
      StatelessParamSampleOp<R, U, SamplePoisson<R, U>, SeedForm::kSeed>);
#define SF_REGISTER_STATELESS_POISSON_RATE(R) \
  SF_REGISTER_STATELESS_POISSON(R, half)      \
  SF_REGISTER_STATELESS_POISSON(R, float)     \
  SF_REGISTER_STATELESS_POISSON(R, double)    \
  SF_REGISTER_STATELESS_POISSON(R, int32_t)   \
  SF_REGISTER_STATELESS_POISSON(R, int64_t)
SF_REGISTER_STATELESS_POISSON_RATE(half)
SF_REGISTER_STATELESS_POISSON_RATE(float)
SF_REGISTER_STATELESS_POISSON_RATE(double)
SF_REGISTER_STATELESS_POISSON_RATE(int32_t)
SF_REGISTER_STATELESS_POISSON_RATE(int64_t)
#undef SF_REGISTER_STATELESS_POISSON_RATE
#undef SF_REGISTER_STATELESS_POISSON

// StatelessRandomBinomial(shape, seed, counts, probs): counts and probs
// broadcast against each other, the output shape ends with their broadcast
// shape, values drawn by SampleBinomial (random_binomial.h).
template <typename T, typename U>
class StatelessRandomBinomialOp : public ShardedOpKernel {
 public:
  using ShardedOpKernel::ShardedOpKernel;

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& seed = ctx->input(1);
    const Tensor& counts = ctx->input(2);
    const Tensor& probs = ctx->input(3);
    OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                NodeInvalidArgument(ctx, "seed must have shape [2], not ",
                                    seed.shape().DebugString()));
    BCast bcast(counts.shape(), probs.shape());
    OP_REQUIRES(
        ctx, bcast.IsValid(),
        NodeInvalidArgument(ctx,
                            "counts and probs must have compatible batch "
                            "dimensions: ",
                            counts.shape().DebugString(), " vs. ",
                            probs.shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    OP_REQUIRES(ctx, EndsWith(shape, bcast.output_shape()),
                NodeInvalidArgument(
                    ctx, "Shape passed in must end with broadcasted shape."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    PhiloxRandom gen;
    absl::Status s = GeneratorFromSeed(seed, &gen);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    // Where each batch member's count and prob sit.
    auto count_index = std::make_shared<std::vector<int64_t>>();
    auto prob_index = std::make_shared<std::vector<int64_t>>();
    bcast.ForEachRow([&](int64_t xo, int64_t xs, int64_t yo, int64_t ys,
                         int64_t, int64_t len) {
      for (int64_t j = 0; j < len; ++j) {
        count_index->push_back(xo + j * xs);
        prob_index->push_back(yo + j * ys);
      }
    });
    const int64_t per_batch = n / bcast.output_elements();
    const T* c = counts.base<T>();
    const T* p = probs.base<T>();
    U* data = out->base<U>();
    work->units = n;
    work->cost_per_unit = 400;
    work->fn = [=](int64_t begin, int64_t end) {
      SampleBinomial<T, U>(gen, c, p, *count_index, *prob_index, per_batch,
                           begin, end, data);
    };
  }
};

#define SF_REGISTER_STATELESS_BINOMIAL(T, U)               \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomBinomial")  \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<U>("dtype"), \
                          StatelessRandomBinomialOp<T, U>);
#define SF_REGISTER_STATELESS_BINOMIAL_T(T)  \
  SF_REGISTER_STATELESS_BINOMIAL(T, half)    \
  SF_REGISTER_STATELESS_BINOMIAL(T, float)   \
  SF_REGISTER_STATELESS_BINOMIAL(T, double)  \
  SF_REGISTER_STATELESS_BINOMIAL(T, int32_t) \
  SF_REGISTER_STATELESS_BINOMIAL(T, int64_t)
SF_REGISTER_STATELESS_BINOMIAL_T(half)
SF_REGISTER_STATELESS_BINOMIAL_T(float)
SF_REGISTER_STATELESS_BINOMIAL_T(double)
#undef SF_REGISTER_STATELESS_BINOMIAL_T
#undef SF_REGISTER_STATELESS_BINOMIAL

// StatelessRandomGetKeyCounter (alg false) and
// StatelessRandomGetKeyCounterAlg (alg true): the V2 inputs for a seed.
template <bool kWithAlg>
class GetKeyCounterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom gen;
    absl::Status s = GeneratorFromSeed(ctx->input(0), &gen);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    Tensor* key = nullptr;
    Tensor* counter = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({2}), &counter));
    key->base<uint64_t>()[0] = KeyAsUint64(gen);
    CounterAsUint64(gen, counter->base<uint64_t>());
    if constexpr (kWithAlg) {
      Tensor* alg = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({}), &alg));
      alg->base<int32_t>()[0] = kRngAlgPhilox;
    }
  }
};

class GetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* alg = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &alg));
    alg->base<int32_t>()[0] = kRngAlgPhilox;
  }
};

REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounter")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32_t>("Tseed"),
                        GetKeyCounterOp<false>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounter")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64_t>("Tseed"),
                        GetKeyCounterOp<false>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounterAlg")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32_t>("Tseed"),
                        GetKeyCounterOp<true>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounterAlg")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64_t>("Tseed"),
                        GetKeyCounterOp<true>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetAlg").Device(DEVICE_CPU),
                        GetAlgOp);

}  // namespace
}  // namespace stepflow
