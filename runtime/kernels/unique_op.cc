// Unique(x), UniqueV2(x, axis) and UniqueWithCounts(x): the distinct
// elements of a vector (UniqueV2 with an axis: the distinct slices along
// it) in order of first appearance, `idx` mapping each input position to
// its value's place in y, and (WithCounts) how often each value occurs.
// Values compare with operator== (0.0 equals -0.0; each NaN is distinct).
// Errors (InvalidArgument naming the node): x not 1-D (without an axis),
// an axis tensor that is not a vector of at most one element, an axis out
// of range.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/value_hash.h"

namespace stepflow {
namespace {

template <typename T, typename Index>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const bool with_counts = ctx->num_outputs() == 3;
    int64_t axis = 0;
    bool has_axis = false;
    if (ctx->num_inputs() > 1) {
      const Tensor& axis_t = ctx->input(1);
      OP_REQUIRES(ctx, axis_t.dims() == 1,
                  NodeInvalidArgument(ctx, "axis expects a 1D vector."));
      OP_REQUIRES(ctx, axis_t.NumElements() <= 1,
                  NodeInvalidArgument(ctx,
                                      "axis does not support input tensors "
                                      "larger than 1 elements"));
      if (axis_t.NumElements() == 1) {
        std::vector<int64_t> v;
        OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axis_t, &v));
        axis = v[0] < 0 ? v[0] + x.dims() : v[0];
        OP_REQUIRES(ctx, axis >= 0 && axis < x.dims(),
                    NodeInvalidArgument(ctx, "axis has to be between [0, ",
                                        x.dims(), ")"));
        has_axis = true;
      }
    }
    if (!has_axis) {
      OP_REQUIRES(ctx, x.dims() == 1,
                  NodeInvalidArgument(ctx, "unique expects a 1D vector."));
    }
    // x as [outer, n, inner]; slice j is x[:, j, :].
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < x.dims(); ++d) {
      inner *= x.dim_size(d);
    }
    const int64_t n = x.dim_size(static_cast<int>(axis));
    const T* in = x.base<T>();
    auto at = [&](int64_t j, int64_t o, int64_t i) {
      return in[(o * n + j) * inner + i];
    };
    auto hash = [&](int64_t j) {
      size_t h = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          h = h * 1000003 + ValueHash(at(j, o, i));
        }
      }
      return h;
    };
    auto equal = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          if (!(at(a, o, i) == at(b, o, i))) return false;
        }
      }
      return true;
    };
    std::unordered_map<size_t, std::vector<int64_t>> buckets;
    std::vector<int64_t> firsts;  // Input position of each unique slice.
    std::vector<int64_t> counts;
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    Index* idx_out = idx->base<Index>();
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t>& bucket = buckets[hash(j)];
      int64_t id = -1;
      for (int64_t u : bucket) {
        if (equal(firsts[u], j)) {
          id = u;
          break;
        }
      }
      if (id < 0) {
        id = static_cast<int64_t>(firsts.size());
        firsts.push_back(j);
        counts.push_back(0);
        bucket.push_back(id);
      }
      ++counts[id];
      idx_out[j] = static_cast<Index>(id);
    }
    const int64_t uniq = static_cast<int64_t>(firsts.size());
    TensorShape shape = x.shape();
    shape.set_dim(static_cast<int>(axis), uniq);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &y));
    T* yo = y->base<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t u = 0; u < uniq; ++u) {
        for (int64_t i = 0; i < inner; ++i) {
          yo[(o * uniq + u) * inner + i] = at(firsts[u], o, i);
        }
      }
    }
    if (with_counts) {
      Tensor* count = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({uniq}), &count));
      for (int64_t u = 0; u < uniq; ++u) {
        count->base<Index>()[u] = static_cast<Index>(counts[u]);
      }
    }
  }
};

#define REGISTER_ONE(OP, T, I)                               \
  REGISTER_KERNEL_BUILDER(Name(OP)                           \
                              .Device(DEVICE_CPU)            \
                              .TypeConstraint<T>("T")        \
                              .TypeConstraint<I>("out_idx"), \
                          UniqueOp<T, I>);
#define REGISTER(T)                            \
  REGISTER_ONE("Unique", T, int32_t)           \
  REGISTER_ONE("Unique", T, int64_t)           \
  REGISTER_ONE("UniqueV2", T, int32_t)         \
  REGISTER_ONE("UniqueV2", T, int64_t)         \
  REGISTER_ONE("UniqueWithCounts", T, int32_t) \
  REGISTER_ONE("UniqueWithCounts", T, int64_t)
SF_CALL_REAL_NUMBER_TYPES(REGISTER)
REGISTER(bool)
REGISTER(std::string)
#undef REGISTER
#undef REGISTER_ONE

}  // namespace
}  // namespace stepflow
