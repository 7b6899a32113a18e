// ParameterizedTruncatedNormal(shape, means, stddevs, minvals, maxvals) for
// half, float and double: shape[0] batches of prod(shape[1:]) values, each
// batch truncated-normal with its parameters (each a scalar, a length-1
// vector or a shape[0]-vector), drawn by random_truncated_normal.h from
// the node's seeded stream. When every parameter is shared, the output is
// cut into batches of 100 values instead (as TensorFlow cuts it). A run
// reserves batches * 2 * 1000 * (per_batch + 3) / 4 blocks, as TensorFlow
// does.
// Batches are drawn on the calling thread from one stream in order, so the
// values never depend on the Scheduler's threads; they are TensorFlow's
// whenever TensorFlow does not split the batches across its own threads.
//
// Errors (InvalidArgument naming the node): a shape that is not a non-empty
// vector of non-negative sizes, parameters of rank > 1 or of another
// length, invalid parameters (random_truncated_normal.h); Internal when a
// sampler gives up.
#include <cstdint>

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/random_truncated_normal.h"

namespace stepflow {
namespace {

// Shared parameters are drawn in batches of this many values.
constexpr int64_t kSharedBatchSize = 100;

template <typename T>
class ParameterizedTruncatedNormalOp : public OpKernel {
 public:
  explicit ParameterizedTruncatedNormalOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    OP_REQUIRES(ctx, shape.dims() > 0,
                NodeInvalidArgument(ctx,
                                    "Input shape should be a non-empty "
                                    "vector, got shape: []"));
    int64_t num_batches = shape.dim_size(0);
    int64_t per_batch = 1;
    for (int d = 1; d < shape.dims(); ++d) per_batch *= shape.dim_size(d);
    const int64_t n = num_batches * per_batch;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    static const char* const kNames[4] = {"means", "stddevs", "minvals",
                                          "maxvals"};
    BatchParam<T> params[4];
    for (int i = 0; i < 4; ++i) {
      const Tensor& t = ctx->input(i + 1);
      OP_REQUIRES(ctx, t.dims() <= 1,
                  NodeInvalidArgument(ctx, "Input ", kNames[i],
                                      " should be a scalar or vector, got "
                                      "shape: ",
                                      t.shape().DebugString()));
      params[i] = BatchParam<T>{t.base<T>(), t.NumElements()};
    }
    auto single = [ctx](int i) {
      const Tensor& t = ctx->input(i + 1);
      return t.dims() == 0 || t.dim_size(0) == 1;
    };
    if (single(0) && single(1) && ctx->input(3).dims() == 0 &&
        ctx->input(4).dims() == 0) {
      num_batches = (n + kSharedBatchSize - 1) / kSharedBatchSize;
      per_batch = kSharedBatchSize;
    } else {
      for (int i = 0; i < 4; ++i) {
        OP_REQUIRES(ctx, single(i) || params[i].size == num_batches,
                    NodeInvalidArgument(
                        ctx, "Input ", kNames[i],
                        " should have length 1 or shape[0], got shape: ",
                        ctx->input(i + 1).shape().DebugString()));
      }
    }
    const PhiloxRandom gen = generator_.ReserveBlocks(static_cast<uint64_t>(
        num_batches * 2 * kTruncatedNormalMaxIterations * (per_batch + 3) / 4));
    if (n == 0) return;
    absl::Status s = SampleParameterizedTruncatedNormal<T>(
        gen, num_batches, per_batch, n, params[0], params[1], params[2],
        params[3], out->base<T>());
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
  }

 private:
  GuardedPhiloxRandom generator_;
};

#define SF_REGISTER_PTN(T)                                     \
  REGISTER_KERNEL_BUILDER(Name("ParameterizedTruncatedNormal") \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("dtype"),     \
                          ParameterizedTruncatedNormalOp<T>);
SF_REGISTER_PTN(half)
SF_REGISTER_PTN(float)
SF_REGISTER_PTN(double)
#undef SF_REGISTER_PTN

}  // namespace
}  // namespace stepflow
