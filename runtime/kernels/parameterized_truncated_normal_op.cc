// StatelessParameterizedTruncatedNormal (below) and
// ParameterizedTruncatedNormal(shape, means, stddevs, minvals, maxvals), for
// half, float and double. ParameterizedTruncatedNormal: shape[0] batches of
// prod(shape[1:]) values, each batch truncated-normal with its parameters (each
// a scalar, a length-1 vector or a shape[0]-vector), drawn by
// random_truncated_normal.h from the node's seeded stream. When every parameter
// is shared, the output is cut into batches of 100 values instead (as
// TensorFlow cuts it). A run reserves batches * 2 * 1000 * (per_batch + 3) / 4
// blocks, as TensorFlow does. Batches are drawn on the calling thread from one
// stream in order, so the values never depend on the Scheduler's threads; they
// are TensorFlow's whenever TensorFlow does not split the batches across its
// own threads.
//
// Errors (InvalidArgument naming the node): a shape that is not a non-empty
// vector of non-negative sizes, parameters of rank > 1 or of another
// length, invalid parameters (random_truncated_normal.h); Internal when a
// sampler gives up.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/random_truncated_normal.h"
#include "runtime/kernels/stateless_random_seed.h"

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
    const TruncatedNormalLayout layout{num_batches, per_batch, n, per_batch, 1};
    absl::Status s = SampleParameterizedTruncatedNormal<T>(
        gen, layout, params[0], params[1], params[2], params[3],
        out->base<T>());
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
  }

 private:
  GuardedPhiloxRandom generator_;
};

// The broadcast of the four parameters' shapes into `shape`, and for each
// parameter the flat index it reads per batch member (row-major over
// `shape`). False when the shapes do not broadcast.
bool BroadcastParams(const Tensor* params[4], TensorShape* shape,
                     std::vector<int64_t> index[4]) {
  int rank = 0;
  for (int p = 0; p < 4; ++p) rank = std::max(rank, params[p]->dims());
  std::vector<int64_t> dims(rank, 1);
  for (int p = 0; p < 4; ++p) {
    const int offset = rank - params[p]->dims();
    for (int i = 0; i < params[p]->dims(); ++i) {
      const int64_t size = params[p]->dim_size(i);
      int64_t& d = dims[offset + i];
      if (d == 1) {
        d = size;
      } else if (size != 1 && size != d) {
        return false;
      }
    }
  }
  if (!TensorShape::BuildTensorShape(dims, shape).ok()) return false;
  const int64_t total = shape->num_elements();
  for (int p = 0; p < 4; ++p) {
    // Stride of each output dim in parameter p (0 where it broadcasts).
    std::vector<int64_t> stride(rank, 0);
    int64_t step = 1;
    for (int i = params[p]->dims() - 1; i >= 0; --i) {
      const int d = rank - params[p]->dims() + i;
      if (params[p]->dim_size(i) != 1) stride[d] = step;
      step *= params[p]->dim_size(i);
    }
    index[p].resize(total);
    std::vector<int64_t> at(rank, 0);
    int64_t flat = 0;
    for (int64_t b = 0; b < total; ++b) {
      index[p][b] = flat;
      for (int d = rank - 1; d >= 0; --d) {
        if (++at[d] < dims[d]) {
          flat += stride[d];
          break;
        }
        flat -= stride[d] * (dims[d] - 1);
        at[d] = 0;
      }
    }
  }
  return true;
}

// StatelessParameterizedTruncatedNormal(shape, seed, means, stddevs,
// minvals, maxvals): the parameters broadcast against each other, the
// output shape ends with their broadcast shape and holds per_batch samples
// of each batch member, sample-major.
template <typename T>
class StatelessParameterizedTruncatedNormalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                NodeInvalidArgument(ctx, "seed must have shape [2], not ",
                                    seed.shape().DebugString()));
    const Tensor* params[4] = {&ctx->input(2), &ctx->input(3), &ctx->input(4),
                               &ctx->input(5)};
    TensorShape batch_shape;
    std::vector<int64_t> index[4];
    OP_REQUIRES(
        ctx, BroadcastParams(params, &batch_shape, index),
        NodeInvalidArgument(
            ctx,
            "means, stddevs, minvals, maxvals must have compatible batch "
            "dimensions: ",
            params[0]->shape().DebugString(), " vs. ",
            params[1]->shape().DebugString(), " vs. ",
            params[2]->shape().DebugString(), " vs. ",
            params[3]->shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    OP_REQUIRES(ctx, EndsWith(shape, batch_shape),
                NodeInvalidArgument(
                    ctx, "Shape passed in must end with broadcasted shape."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    if (n == 0) return;
    PhiloxRandom gen;
    absl::Status s = GeneratorFromSeed(seed, &gen);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    const int64_t num_batches = batch_shape.num_elements();
    BatchParam<T> p[4];
    for (int i = 0; i < 4; ++i) {
      p[i] = BatchParam<T>{params[i]->base<T>(), params[i]->NumElements(),
                           index[i].data()};
    }
    const TruncatedNormalLayout layout{num_batches, n / num_batches, n, 1,
                                       num_batches};
    s = SampleParameterizedTruncatedNormal<T>(gen, layout, p[0], p[1], p[2],
                                              p[3], out->base<T>());
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
  }
};

#define SF_REGISTER_PTN(T)                                              \
  REGISTER_KERNEL_BUILDER(Name("ParameterizedTruncatedNormal")          \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("dtype"),              \
                          ParameterizedTruncatedNormalOp<T>);           \
  REGISTER_KERNEL_BUILDER(Name("StatelessParameterizedTruncatedNormal") \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("dtype"),              \
                          StatelessParameterizedTruncatedNormalOp<T>);
SF_REGISTER_PTN(half)
SF_REGISTER_PTN(float)
SF_REGISTER_PTN(double)
#undef SF_REGISTER_PTN

}  // namespace
}  // namespace stepflow
