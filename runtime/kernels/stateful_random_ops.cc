// Random ops on a resource-variable RNG state (tf.random.Generator):
// StatefulUniform, StatefulStandardNormalV2, StatefulTruncatedNormal (half,
// bfloat16, float, double), StatefulUniformInt and StatefulUniformFullInt
// (int32, int64; full-range also uint32, uint64), RngSkip and
// RngReadAndSkip.
//
// The state is an int64 vector variable; for the Philox algorithm (id 1, or
// 3 for auto-select) its first three elements are the 128-bit counter (low
// half first) and the 64-bit key, each int64 holding two 32-bit words low
// word first. A draw of n values fills the output in TensorFlow's group
// layout (random_fill.h) from the state's stream and advances the counter
// by 256 * n blocks; RngSkip advances it by 256 * delta. The state is read
// and advanced under the variable's lock, so concurrent draws never share
// numbers; the fill itself runs on the Scheduler without the lock.
//
// Errors (InvalidArgument naming the node): a malformed shape, algorithm or
// state (not int64, not a vector, fewer than 3 elements), an unknown
// algorithm (Unimplemented for ThreeFry, which has no CPU kernel); for
// StatefulUniformInt non-scalar bounds or minval >= maxval (even with an
// empty output). A missing state variable is the error of LookupVar.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_fill.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/sharded_op_kernel.h"
#include "runtime/kernels/stateless_random_seed.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

// Philox's state size in int64 elements: two for the counter, one for the
// key.
constexpr int64_t kPhiloxStateSize = 3;

uint32_t Lo(int64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(int64_t v) { return static_cast<uint32_t>(v >> 32); }
int64_t Join(uint32_t lo, uint32_t hi) {
  return static_cast<int64_t>(static_cast<uint64_t>(hi) << 32 | lo);
}

// The state variable's stream for algorithm `alg`, advanced in the variable
// by `blocks`; the state before the advance in `*before` when non-null.
absl::Status ReadAndAdvanceState(OpKernelContext* ctx, int64_t alg,
                                 uint64_t blocks, PhiloxRandom* gen,
                                 Tensor* before) {
  const ResourceHandleProto* handle = nullptr;
  absl::Status s = HandleFromInput(ctx, 0, &handle);
  if (!s.ok()) return s;
  Var* var = nullptr;
  s = LookupVar(ctx, *handle, &var);
  if (!s.ok()) return s;
  ScopedUnref unref(var);
  absl::MutexLock l(var->mu());
  Tensor* state = var->tensor();
  if (state->dtype() != DT_INT64) {
    return NodeInvalidArgument(ctx, "dtype of RNG state variable must be ",
                               "int64, not ", DataTypeString(state->dtype()));
  }
  if (state->dims() != 1) {
    return NodeInvalidArgument(
        ctx, "RNG state must have one and only one dimension, not ",
        state->dims());
  }
  if (alg == kRngAlgAutoSelect) alg = kRngAlgPhilox;
  if (alg == kRngAlgThreeFry) {
    return NodeError(absl::StatusCode::kUnimplemented, ctx->op_kernel(),
                     "Non-Philox algorithm (ThreeFry) is not supported on "
                     "CPU");
  }
  if (alg != kRngAlgPhilox) {
    return NodeInvalidArgument(ctx, "Unsupported algorithm id: ", alg);
  }
  if (state->NumElements() < kPhiloxStateSize) {
    return NodeInvalidArgument(
        ctx, "For the Philox algorithm, the size of state must be at least ",
        kPhiloxStateSize, "; got ", state->NumElements());
  }
  PrepareToUpdateVariable(var);
  int64_t* data = var->tensor()->base<int64_t>();
  if (before != nullptr) {
    for (int i = 0; i < kPhiloxStateSize; ++i) {
      before->base<int64_t>()[i] = data[i];
    }
  }
  *gen = PhiloxRandom(
      PhiloxRandom::Counter{Lo(data[0]), Hi(data[0]), Lo(data[1]), Hi(data[1])},
      PhiloxRandom::Key{Lo(data[2]), Hi(data[2])});
  PhiloxRandom next = *gen;
  next.Skip(blocks);
  const PhiloxRandom::Counter& c = next.counter();
  data[0] = Join(c[0], c[1]);
  data[1] = Join(c[2], c[3]);
  return absl::OkStatus();
}

absl::Status ScalarInt(OpKernelContext* ctx, int index, int64_t* value) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0) {
    return NodeInvalidArgument(ctx, "input ", index, " must be a scalar, got ",
                               t.shape().DebugString());
  }
  *value = t.dtype() == DT_INT32 ? t.base<int32_t>()[0] : t.base<int64_t>()[0];
  return absl::OkStatus();
}

// A draw of `Dist` values of T (inputs: resource, algorithm, shape, ...).
template <typename T, typename Dist>
class StatefulRandomOp : public ShardedOpKernel {
 public:
  using ShardedOpKernel::ShardedOpKernel;

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    Dist dist;
    OP_REQUIRES_OK(ctx, MakeDist(ctx, &dist));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(2), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = shape.num_elements();
    int64_t alg = 0;
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 1, &alg));
    PhiloxRandom gen;
    OP_REQUIRES_OK(
        ctx, ReadAndAdvanceState(
                 ctx, alg, static_cast<uint64_t>(n) * kBlocksReservedPerValue,
                 &gen, nullptr));
    T* data = out->base<T>();
    work->units = RandomGroupCount<T>(n);
    work->cost_per_unit = 64;
    work->fn = [gen, dist, n, data](int64_t begin, int64_t end) {
      FillRandomGroups<T>(gen, dist, n, begin, end, data);
    };
  }

  // Reads and checks the distribution's parameters (even for an empty
  // output).
  virtual absl::Status MakeDist(OpKernelContext*, Dist*) {
    return absl::OkStatus();
  }
};

template <typename T>
class StatefulUniformIntOp : public StatefulRandomOp<T, UniformIntDist<T>> {
 public:
  using StatefulRandomOp<T, UniformIntDist<T>>::StatefulRandomOp;

 protected:
  absl::Status MakeDist(OpKernelContext* ctx,
                        UniformIntDist<T>* dist) override {
    const Tensor& minval = ctx->input(3);
    const Tensor& maxval = ctx->input(4);
    if (minval.dims() != 0) {
      return NodeInvalidArgument(ctx, "minval must be 0-D, got shape ",
                                 minval.shape().DebugString());
    }
    if (maxval.dims() != 0) {
      return NodeInvalidArgument(ctx, "maxval must be 0-D, got shape ",
                                 maxval.shape().DebugString());
    }
    dist->lo = minval.base<T>()[0];
    dist->hi = maxval.base<T>()[0];
    if (dist->lo < dist->hi) return absl::OkStatus();
    return NodeInvalidArgument(ctx, "Need minval < maxval: ", dist->lo,
                               " >= ", dist->hi);
  }
};

#define SF_REGISTER_STATEFUL_FLOAT(T)                                        \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("StatefulUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      StatefulRandomOp<T, UniformDist<T>>);                                  \
  REGISTER_KERNEL_BUILDER(Name("StatefulStandardNormalV2")                   \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("dtype"),                   \
                          StatefulRandomOp<T, NormalDist<T>>);               \
  REGISTER_KERNEL_BUILDER(Name("StatefulTruncatedNormal")                    \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("dtype"),                   \
                          StatefulRandomOp<T, TruncatedNormalDist<T>>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_STATEFUL_FLOAT)
#undef SF_REGISTER_STATEFUL_FLOAT

#define SF_REGISTER_STATEFUL_INT(T)                        \
  REGISTER_KERNEL_BUILDER(Name("StatefulUniformInt")       \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("dtype"), \
                          StatefulUniformIntOp<T>);
SF_REGISTER_STATEFUL_INT(int32_t)
SF_REGISTER_STATEFUL_INT(int64_t)
#undef SF_REGISTER_STATEFUL_INT

#define SF_REGISTER_STATEFUL_FULL_INT(T)                   \
  REGISTER_KERNEL_BUILDER(Name("StatefulUniformFullInt")   \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("dtype"), \
                          StatefulRandomOp<T, FullIntDist<T>>);
SF_REGISTER_STATEFUL_FULL_INT(int32_t)
SF_REGISTER_STATEFUL_FULL_INT(int64_t)
SF_REGISTER_STATEFUL_FULL_INT(uint32_t)
SF_REGISTER_STATEFUL_FULL_INT(uint64_t)
#undef SF_REGISTER_STATEFUL_FULL_INT

// RngSkip (no output) and RngReadAndSkip (the state before the skip).
template <bool kRead>
class RngSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t alg = 0, delta = 0;
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 1, &alg));
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 2, &delta));
    Tensor* before = nullptr;
    if (kRead) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              0, TensorShape({kPhiloxStateSize}), &before));
    }
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, ReadAndAdvanceState(ctx, alg,
                                            static_cast<uint64_t>(delta) *
                                                kBlocksReservedPerValue,
                                            &gen, before));
  }
};

REGISTER_KERNEL_BUILDER(Name("RngSkip").Device(DEVICE_CPU), RngSkipOp<false>);
REGISTER_KERNEL_BUILDER(Name("RngReadAndSkip").Device(DEVICE_CPU),
                        RngSkipOp<true>);

}  // namespace
}  // namespace stepflow
