// BatchMatMul and BatchMatMulV2: output[..., :, :] = op(x[..., :, :]) *
// op(y[..., :, :]) where op adjoints (transposes and conjugates) when
// adj_x / adj_y is set. Inputs have rank >= 2; the leading dims are batch
// dims. BatchMatMul requires equal ranks and identical batch dims;
// BatchMatMulV2 broadcasts the batch dims like NumPy. Each slice is one
// Gemm (gemm.h); half/bfloat16 compute in float; integers wrap.
// BatchMatMulV2 also takes int16 (as in TensorFlow).
// Shape errors are InvalidArgument naming the node.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/bcast.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// The element type GEMM runs in: float for the 16-bit floats; uint32 for
// int16, whose low 16 bits are the wrapped int16 products and sums.
template <typename T>
using GemmType = std::conditional_t<
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value, float,
    std::conditional_t<std::is_same<T, int16_t>::value, uint32_t,
                       ArithType<T>>>;

// out (m x n) = op(a) * op(b) for one slice; a's rows hold ca elements,
// b's rows cb; op(a) is m x k.
template <typename C>
void SliceProduct(const C* a, int64_t ca, bool adj_a, const C* b, int64_t cb,
                  bool adj_b, C* out, int64_t m, int64_t n, int64_t k) {
  Gemm(DenseGemmArgs(a, ca, adj_a ? GemmOp::kConjTrans : GemmOp::kNoTrans, b,
                     cb, adj_b ? GemmOp::kConjTrans : GemmOp::kNoTrans, out, m,
                     n, k));
}

template <typename T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(
        ctx, x.dims() >= 2,
        NodeInvalidArgument(ctx, "In[0] ndims must be >= 2: ", x.dims()));
    OP_REQUIRES(
        ctx, y.dims() >= 2,
        NodeInvalidArgument(ctx, "In[1] ndims must be >= 2: ", y.dims()));
    TensorShape xb, yb;
    for (int d = 0; d < x.dims() - 2; ++d) xb.AddDim(x.dim_size(d));
    for (int d = 0; d < y.dims() - 2; ++d) yb.AddDim(y.dim_size(d));
    if constexpr (!kBroadcast) {
      OP_REQUIRES(ctx, x.dims() == y.dims(),
                  NodeInvalidArgument(ctx,
                                      "In[0] and In[1] has different "
                                      "ndims: ",
                                      x.shape().DebugString(), " vs. ",
                                      y.shape().DebugString()));
      for (int d = 0; d < x.dims() - 2; ++d) {
        OP_REQUIRES(
            ctx, x.dim_size(d) == y.dim_size(d),
            NodeInvalidArgument(ctx, "In[0].dim(", d, ") and In[1].dim(", d,
                                ") must be the same: ", x.shape().DebugString(),
                                " vs ", y.shape().DebugString()));
      }
    }
    BCast bcast(xb, yb);
    OP_REQUIRES(ctx, bcast.IsValid(),
                NodeInvalidArgument(ctx,
                                    "In[0] and In[1] must have compatible "
                                    "batch dimensions: ",
                                    x.shape().DebugString(), " vs. ",
                                    y.shape().DebugString()));
    const int64_t xr = x.dim_size(x.dims() - 2), xc = x.dim_size(x.dims() - 1);
    const int64_t yr = y.dim_size(y.dims() - 2), yc = y.dim_size(y.dims() - 1);
    const int64_t m = adj_x_ ? xc : xr;
    const int64_t k = adj_x_ ? xr : xc;
    const int64_t k2 = adj_y_ ? yc : yr;
    const int64_t n = adj_y_ ? yr : yc;
    OP_REQUIRES(ctx, k == k2,
                NodeInvalidArgument(ctx, "Matrix size-incompatible: In[0]: ",
                                    x.shape().DebugString(),
                                    ", In[1]: ", y.shape().DebugString()));
    TensorShape shape = bcast.output_shape();
    shape.AddDim(m);
    shape.AddDim(n);
    OP_REQUIRES_OK(ctx,
                   CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0 || k == 0) return;  // Zero-filled.

    using C = GemmType<T>;
    constexpr bool kConvert = !std::is_same<C, ArithType<T>>::value;
    const int64_t xs = xr * xc, ys = yr * yc, os = m * n;
    // Staging buffers for half/bfloat16 slices.
    std::vector<C> xbuf, ybuf, obuf;
    if constexpr (kConvert) {
      xbuf.resize(xs);
      ybuf.resize(ys);
      obuf.resize(os);
    }
    auto one = [&](int64_t xi, int64_t yi, int64_t oi) {
      const T* xp = x.base<T>() + xi * xs;
      const T* yp = y.base<T>() + yi * ys;
      T* op = out->base<T>() + oi * os;
      if constexpr (kConvert) {
        for (int64_t i = 0; i < xs; ++i) xbuf[i] = static_cast<C>(xp[i]);
        for (int64_t i = 0; i < ys; ++i) ybuf[i] = static_cast<C>(yp[i]);
        SliceProduct<C>(xbuf.data(), xc, adj_x_, ybuf.data(), yc, adj_y_,
                        obuf.data(), m, n, k);
        for (int64_t i = 0; i < os; ++i) op[i] = static_cast<T>(obuf[i]);
      } else {
        SliceProduct<C>(reinterpret_cast<const C*>(xp), xc, adj_x_,
                        reinterpret_cast<const C*>(yp), yc, adj_y_,
                        reinterpret_cast<C*>(op), m, n, k);
      }
    };
    bcast.ForEachRow([&](int64_t xo, int64_t xstep, int64_t yo, int64_t ystep,
                         int64_t oo, int64_t len) {
      for (int64_t i = 0; i < len; ++i) {
        one(xo + i * xstep, yo + i * ystep, oo + i);
      }
    });
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define SF_REGISTER_BATCH_MATMUL(T)                                    \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      BatchMatMulOp<T, false>);                                        \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulOp<T, true>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_BATCH_MATMUL)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_BATCH_MATMUL)
SF_REGISTER_BATCH_MATMUL(int32_t)
SF_REGISTER_BATCH_MATMUL(int64_t)
#undef SF_REGISTER_BATCH_MATMUL
REGISTER_KERNEL_BUILDER(
    Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<int16_t>("T"),
    BatchMatMulOp<int16_t, true>);

}  // namespace
}  // namespace stepflow
