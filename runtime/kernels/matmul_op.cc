// MatMul: product = op(a) * op(b), op = optional transpose, through Gemm
// (OpenBLAS for float/double/complex, Eigen for integers). half/bfloat16
// compute in float; int32/int64 wrap on overflow (computed as unsigned).
//
// A large product is cut into row or column blocks (SplitGemm), one per
// thread of the Env's Scheduler, and the kernel completes when the last
// block does; with one thread (the simulator) it runs inline. The cut
// depends only on the shapes and the Scheduler's thread count, so results
// are repeatable for a given thread count; between thread counts the last
// bits of a float product may differ (a block may use other BLAS edge
// kernels), as in TensorFlow.
//
// Errors: non-matrix inputs and mismatched inner dimensions are
// InvalidArgument naming the node.
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/parallel_for.h"

namespace stepflow {
namespace {

// Below this many multiply-adds per block a product is not split: a block
// must outweigh the cost of handing it to another thread.
constexpr int64_t kMinFlopsPerBlock = int64_t{1} << 20;

template <typename T>
using RowMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// op(a) * op(b) with a and b stored as the (row-major) tensors ta, tb.
template <typename C>
GemmArgs<C> MakeArgs(const C* a, const Tensor& ta, bool trans_a, const C* b,
                     const Tensor& tb, bool trans_b, C* out, int64_t m,
                     int64_t n, int64_t k) {
  return DenseGemmArgs(
      a, ta.dim_size(1), trans_a ? GemmOp::kTrans : GemmOp::kNoTrans, b,
      tb.dim_size(1), trans_b ? GemmOp::kTrans : GemmOp::kNoTrans, out, m, n,
      k);
}

template <typename T>
class MatMulOp : public AsyncOpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES_ASYNC(
        ctx, a.dims() == 2,
        NodeInvalidArgument(ctx, "In[0] is not a matrix. Instead it has shape ",
                            a.shape().DebugString()),
        done);
    OP_REQUIRES_ASYNC(
        ctx, b.dims() == 2,
        NodeInvalidArgument(ctx, "In[1] is not a matrix. Instead it has shape ",
                            b.shape().DebugString()),
        done);
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t k2 = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES_ASYNC(
        ctx, k == k2,
        NodeInvalidArgument(
            ctx, "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
            ", In[1]: ", b.shape().DebugString()),
        done);
    TensorShape shape({m, n});
    OP_REQUIRES_OK_ASYNC(
        ctx, CheckAllocationSize(*this, shape, DataTypeToEnum<T>::value), done);
    Tensor* out = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, shape, &out), done);
    if (m == 0 || n == 0 || k == 0) {  // allocate_output zero-fills.
      done();
      return;
    }
    if constexpr (std::is_same<T, half>::value ||
                  std::is_same<T, bfloat16>::value) {
      ComputeInFloat(a, b, out, m, n, k);
      done();
    } else {
      using C = ArithType<T>;
      const GemmArgs<C> whole =
          MakeArgs<C>(reinterpret_cast<const C*>(a.base<T>()), a, transpose_a_,
                      reinterpret_cast<const C*>(b.base<T>()), b, transpose_b_,
                      reinterpret_cast<C*>(out->base<T>()), m, n, k);
      Scheduler* scheduler =
          ctx->env() == nullptr ? nullptr : ctx->env()->scheduler;
      const int threads = scheduler == nullptr ? 1 : scheduler->NumThreads();
      auto blocks = std::make_shared<std::vector<GemmArgs<C>>>(
          SplitGemm(whole, threads, kMinFlopsPerBlock));
      // The inputs and output stay alive until `done`: the executor holds
      // them for the kernel's whole (asynchronous) run.
      ParallelForAsync(
          scheduler, static_cast<int>(blocks->size()),
          [blocks](int i) { Gemm((*blocks)[i]); }, std::move(done));
    }
  }

 private:
  // half/bfloat16: widen to float, multiply, narrow; inline.
  void ComputeInFloat(const Tensor& a, const Tensor& b, Tensor* out, int64_t m,
                      int64_t n, int64_t k) {
    RowMajorMatrix<float> af = Eigen::Map<const RowMajorMatrix<T>>(
                                   a.base<T>(), a.dim_size(0), a.dim_size(1))
                                   .template cast<float>();
    RowMajorMatrix<float> bf = Eigen::Map<const RowMajorMatrix<T>>(
                                   b.base<T>(), b.dim_size(0), b.dim_size(1))
                                   .template cast<float>();
    RowMajorMatrix<float> of(m, n);
    Gemm(MakeArgs<float>(af.data(), a, transpose_a_, bf.data(), b, transpose_b_,
                         of.data(), m, n, k));
    Eigen::Map<RowMajorMatrix<T>>(out->base<T>(), m, n) = of.template cast<T>();
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define SF_REGISTER_MATMUL(T) \
  REGISTER_KERNEL_BUILDER(    \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatMulOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_MATMUL)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_MATMUL)
SF_REGISTER_MATMUL(int32_t)
SF_REGISTER_MATMUL(int64_t)
#undef SF_REGISTER_MATMUL

}  // namespace
}  // namespace stepflow
