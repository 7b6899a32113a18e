// Multinomial and StatelessMultinomial: num_samples class indices per row
// of a [batch, classes] logits matrix, drawn as TensorFlow's CPU kernel
// draws them.
//
// Per row: the largest finite logit m, exp(logit - m) in double, a running
// (unnormalised) CDF over the finite logits, and for each sample a uniform
// double u (two words of the stream, TensorFlow's RandDouble) mapped to the
// first class whose CDF exceeds u * total. Non-finite logits never get
// drawn; a row with none finite yields `classes`. Rows read one stream in
// order, so a row's samples follow the previous row's words.
//
// The stream: Multinomial reserves batch * ceil4(num_samples) * 2 * 256
// blocks of the node's seeded stream per run; StatelessMultinomial starts
// from its seed input (stateless_random_seed.h). The kernel runs rows on
// the calling thread, so values never depend on the Scheduler's threads;
// they are TensorFlow's whenever TensorFlow does not split the batch across
// its own threads (it skips the stream per split, so its large-batch values
// depend on its thread count).
//
// Errors (InvalidArgument naming the node): logits not a matrix,
// num_samples not a non-negative scalar, no classes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/stateless_random_seed.h"

namespace stepflow {
namespace {

template <typename T, typename OutT>
void SampleRows(const T* logits, int64_t batch, int64_t classes,
                int64_t num_samples, const PhiloxRandom& gen, OutT* out) {
  RandomWordStream words(gen);
  std::vector<double> cdf(classes);
  for (int64_t b = 0; b < batch; ++b) {
    const T* row = logits + b * classes;
    double max = static_cast<double>(std::numeric_limits<T>::lowest());
    for (int64_t j = 0; j < classes; ++j) {
      const double v = static_cast<double>(row[j]);
      if (std::isfinite(v)) max = std::max(max, v);
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const double v = static_cast<double>(row[j]);
      if (std::isfinite(v)) total += std::exp(v - max);
      cdf[j] = total;
    }
    for (int64_t s = 0; s < num_samples; ++s) {
      const uint32_t hi = words.Next32();
      const uint32_t lo = words.Next32();
      const double target = UniformDouble(hi, lo) * total;
      out[b * num_samples + s] = static_cast<OutT>(
          std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
    }
  }
}

// The checks and output of both ops; `stream` supplies the generator once
// the output is known to be non-empty (given the batch and sample count).
template <typename T, typename OutT, typename StreamFn>
void ComputeMultinomial(OpKernelContext* ctx, StreamFn stream) {
  const Tensor& logits = ctx->input(0);
  const Tensor& num_samples_t = ctx->input(1);
  OP_REQUIRES(ctx, logits.dims() == 2,
              NodeInvalidArgument(ctx, "logits should be a matrix, got shape ",
                                  logits.shape().DebugString()));
  OP_REQUIRES(ctx, num_samples_t.dims() == 0,
              NodeInvalidArgument(ctx, "num_samples should be a scalar."));
  const int64_t num_samples = num_samples_t.base<int32_t>()[0];
  OP_REQUIRES(ctx, num_samples >= 0,
              NodeInvalidArgument(ctx, "num_samples should be nonnegative."));
  const int64_t batch = logits.dim_size(0);
  const int64_t classes = logits.dim_size(1);
  for (int64_t d : {batch, classes}) {
    OP_REQUIRES(ctx, d <= std::numeric_limits<int32_t>::max(),
                NodeInvalidArgument(
                    ctx, "logits.shape = ", logits.shape().DebugString(),
                    " too large for int"));
  }
  OP_REQUIRES(ctx, classes > 0,
              NodeInvalidArgument(ctx, "num_classes should be positive, got ",
                                  classes));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
  if (out->NumElements() == 0) return;
  PhiloxRandom gen;
  absl::Status s = stream(batch, num_samples, &gen);
  OP_REQUIRES(ctx, s.ok(), s);
  SampleRows<T, OutT>(logits.base<T>(), batch, classes, num_samples, gen,
                      out->base<OutT>());
}

template <typename T, typename OutT>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

  void Compute(OpKernelContext* ctx) override {
    ComputeMultinomial<T, OutT>(
        ctx, [this](int64_t batch, int64_t num_samples, PhiloxRandom* gen) {
          // Two words per sample, rounded up to whole groups of four.
          const uint64_t words =
              static_cast<uint64_t>(batch) * ((num_samples + 3) / 4 * 4) * 2;
          *gen = generator_.ReserveBlocks(words * kBlocksReservedPerValue);
          return absl::OkStatus();
        });
  }

 private:
  GuardedPhiloxRandom generator_;
};

template <typename T, typename OutT>
class StatelessMultinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom seeded;
    absl::Status s = GeneratorFromSeed(ctx->input(2), &seeded);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    ComputeMultinomial<T, OutT>(ctx,
                                [&seeded](int64_t, int64_t, PhiloxRandom* gen) {
                                  *gen = seeded;
                                  return absl::OkStatus();
                                });
  }
};

#define SF_REGISTER_MULTINOMIAL(T, OutT)                             \
  REGISTER_KERNEL_BUILDER(Name("Multinomial")                        \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<OutT>("output_dtype"), \
                          MultinomialOp<T, OutT>);                   \
  REGISTER_KERNEL_BUILDER(Name("StatelessMultinomial")               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<OutT>("output_dtype"), \
                          StatelessMultinomialOp<T, OutT>);
#define SF_REGISTER_MULTINOMIAL_T(T) \
  SF_REGISTER_MULTINOMIAL(T, int32_t) SF_REGISTER_MULTINOMIAL(T, int64_t)
SF_CALL_FLOAT_TYPES(SF_REGISTER_MULTINOMIAL_T)
#undef SF_REGISTER_MULTINOMIAL_T
#undef SF_REGISTER_MULTINOMIAL

}  // namespace
}  // namespace stepflow
