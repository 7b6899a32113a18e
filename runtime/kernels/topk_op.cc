// TopKV2(input, k; sorted): the k largest entries of each last-dim row and
// their indices, largest first, equal values in index order (`sorted` =
// false gives the same order). NthElement(input, n; reverse): the n-th
// smallest (reverse: largest) entry of each last-dim row. Errors
// (InvalidArgument naming the node): a scalar input, a non-scalar or
// negative k/n, rows shorter than k (n + 1).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nd_index_util.h"

namespace stepflow {
namespace {

// Reads the scalar `k` (input 1) and checks it against the input.
absl::Status ReadRowCount(const OpKernel& kernel, const Tensor& input,
                          const Tensor& k_t, const char* what, int64_t extra,
                          int64_t* k) {
  if (input.dims() < 1) {
    return NodeInvalidArgument(kernel, "input must be at least 1-D, got shape ",
                               input.shape().DebugString());
  }
  if (k_t.dims() != 0) {
    return NodeInvalidArgument(kernel, what, " must be scalar, got shape ",
                               k_t.shape().DebugString());
  }
  std::vector<int64_t> v;
  absl::Status s = ReadIndexValues(kernel, k_t, &v);
  if (!s.ok()) return s;
  *k = v[0];
  if (*k < 0) {
    return NodeInvalidArgument(kernel, "Need ", what, " >= 0, got ", *k);
  }
  const int64_t cols = input.dim_size(input.dims() - 1);
  if (cols < *k + extra) {
    return NodeInvalidArgument(kernel, "input must have at least ", *k + extra,
                               " columns. Had ", cols);
  }
  return absl::OkStatus();
}

template <typename T, typename Index>
class TopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t k = 0;
    OP_REQUIRES_OK(ctx, ReadRowCount(*this, input, ctx->input(1), "k", 0, &k));
    const int64_t cols = input.dim_size(input.dims() - 1);
    TensorShape shape = input.shape();
    shape.set_dim(input.dims() - 1, k);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &indices));
    if (shape.num_elements() == 0) return;
    const int64_t rows = input.NumElements() / cols;
    const T* in = input.base<T>();
    T* vo = values->base<T>();
    Index* io = indices->base<Index>();
    std::vector<int64_t> order(cols);
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * cols;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [row](int64_t a, int64_t b) {
                          return row[b] < row[a] ||
                                 (!(row[a] < row[b]) && a < b);
                        });
      for (int64_t j = 0; j < k; ++j) {
        vo[r * k + j] = row[order[j]];
        io[r * k + j] = static_cast<Index>(order[j]);
      }
    }
  }
};

template <typename T>
class NthElementOp : public OpKernel {
 public:
  explicit NthElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0;
    OP_REQUIRES_OK(ctx, ReadRowCount(*this, input, ctx->input(1), "n", 1, &n));
    const int64_t cols = input.dim_size(input.dims() - 1);
    TensorShape shape = input.shape();
    shape.RemoveDim(input.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t rows = shape.num_elements();
    const T* in = input.base<T>();
    T* o = out->base<T>();
    std::vector<T> row(cols);
    for (int64_t r = 0; r < rows; ++r) {
      std::copy(in + r * cols, in + (r + 1) * cols, row.begin());
      const int64_t pos = reverse_ ? cols - 1 - n : n;
      std::nth_element(row.begin(), row.begin() + pos, row.end(),
                       [](const T& a, const T& b) { return a < b; });
      o[r] = row[pos];
    }
  }

 private:
  bool reverse_ = false;
};

#define REGISTER_TOPK(T, I)                                     \
  REGISTER_KERNEL_BUILDER(Name("TopKV2")                        \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<I>("index_type"), \
                          TopKOp<T, I>);
#define REGISTER(T)                                                 \
  REGISTER_TOPK(T, int16_t)                                         \
  REGISTER_TOPK(T, int32_t)                                         \
  REGISTER_TOPK(T, int64_t)                                         \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("NthElement").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      NthElementOp<T>);
SF_CALL_REAL_NUMBER_TYPES(REGISTER)
#undef REGISTER
#undef REGISTER_TOPK

}  // namespace
}  // namespace stepflow
