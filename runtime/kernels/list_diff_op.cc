// ListDiff(x, y): the elements of vector x that are not in vector y, in
// x's order (duplicates kept), and their positions in x. Errors
// (InvalidArgument naming the node): x or y not 1-D.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/value_hash.h"

namespace stepflow {
namespace {

template <typename T>
struct HashValue {
  size_t operator()(const T& v) const { return ValueHash(v); }
};

template <typename T, typename Index>
class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.dims() == 1,
                NodeInvalidArgument(ctx, "x should be a 1D vector."));
    OP_REQUIRES(ctx, y.dims() == 1,
                NodeInvalidArgument(ctx, "y should be a 1D vector."));
    const T* xv = x.base<T>();
    const T* yv = y.base<T>();
    std::unordered_set<T, HashValue<T>> drop(yv, yv + y.NumElements());
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (drop.count(xv[i]) == 0) keep.push_back(i);
    }
    const int64_t n = static_cast<int64_t>(keep.size());
    Tensor* out = nullptr;
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    for (int64_t i = 0; i < n; ++i) {
      out->base<T>()[i] = xv[keep[i]];
      idx->base<Index>()[i] = static_cast<Index>(keep[i]);
    }
  }
};

#define REGISTER_ONE(T, I)                                   \
  REGISTER_KERNEL_BUILDER(Name("ListDiff")                   \
                              .Device(DEVICE_CPU)            \
                              .TypeConstraint<T>("T")        \
                              .TypeConstraint<I>("out_idx"), \
                          ListDiffOp<T, I>);
#define REGISTER(T)        \
  REGISTER_ONE(T, int32_t) \
  REGISTER_ONE(T, int64_t)
SF_CALL_REAL_NUMBER_TYPES(REGISTER)
REGISTER(std::string)
#undef REGISTER
#undef REGISTER_ONE

}  // namespace
}  // namespace stepflow
