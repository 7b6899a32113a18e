// Kernels drawing samples per parameter (RandomGamma's alphas,
// RandomPoissonV2's rates, and their stateless forms): an output of shape
// `shape` + params.shape (stateless: a shape ending with params.shape),
// output i (parameter-major numbering) drawn by a ParamSampler from its own
// place in the stream, filled in blocks on the Scheduler.
//
// RandomParamSampleOp is the seeded kernel: inputs (shape, params); it
// reserves 256 blocks per output value of the node's stream per run.
// Errors (InvalidArgument naming the node): a shape that is not a vector
// of non-negative int32/int64 sizes, an output too large.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_PARAM_SAMPLE_OP_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_PARAM_SAMPLE_OP_H_

#include <cstdint>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {

// Writes outputs [begin, end) of a draw over `num_params` parameters with
// `per_param` samples each, from the stream starting at `base`
// (SampleGamma, SamplePoisson).
template <typename P, typename U>
using ParamSampler = void (*)(const PhiloxRandom& base, const P* params,
                              int64_t num_params, int64_t per_param,
                              int64_t begin, int64_t end, U* out);

// Describes in `work` the drawing of every value of `out` (non-empty, its
// shape ending with `params`'s) by `sampler` from `base`.
template <typename P, typename U>
void SetParamSampleWork(ParamSampler<P, U> sampler, const PhiloxRandom& base,
                        const Tensor& params, Tensor* out, ShardedWork* work) {
  const int64_t n = out->NumElements();
  const int64_t num_params = params.NumElements();
  const int64_t per_param = n / num_params;
  const P* p = params.base<P>();
  U* data = out->base<U>();
  work->units = n;
  work->cost_per_unit = 300;
  work->fn = [=](int64_t begin, int64_t end) {
    sampler(base, p, num_params, per_param, begin, end, data);
  };
}

template <typename P, typename U, ParamSampler<P, U> kSampler>
class RandomParamSampleOp : public ShardedOpKernel {
 public:
  explicit RandomParamSampleOp(OpKernelConstruction* ctx)
      : ShardedOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& params = ctx->input(1);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ConcatShapes(shape, params.shape(), &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = out_shape.num_elements();
    if (n == 0) return;
    const PhiloxRandom base = generator_.ReserveBlocks(
        static_cast<uint64_t>(n) * kBlocksReservedPerValue);
    SetParamSampleWork<P, U>(kSampler, base, params, out, work);
  }

 private:
  GuardedPhiloxRandom generator_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_PARAM_SAMPLE_OP_H_
