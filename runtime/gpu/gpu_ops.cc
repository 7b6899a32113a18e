// CUDA OpKernels: MatMul (cuBLAS), element-wise math with broadcasting,
// BiasAdd, Relu/ReluGrad, Sum/Mean, Softmax, SoftmaxCrossEntropyWithLogits,
// ApplyGradientDescent, Identity, Const, Cast and Assign (ref variables:
// Variable/VariableV2 are the device-agnostic VariableOp of
// runtime/kernels/variable.h). All enqueue on the device's compute stream and
// return; see gpu_device.h for the ordering contract.
//
// Binary ops broadcast as NumPy does, up to 8 output dimensions (beyond:
// Unimplemented naming the node); non-broadcastable shapes are
// InvalidArgument "Incompatible shapes". Equal shapes, single elements and
// last-dimension vectors take cheaper index paths than the general strided
// one.
#include "runtime/gpu/gpu_ops.h"

#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/refcount.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_kernel_defs.h"
#include "runtime/gpu/gpu_launchers.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

using gpu::BinaryOp;
using gpu::Operand;
using gpu::UnaryOp;

absl::Status GetGpu(OpKernelContext* ctx, GpuDevice** out) {
  *out = dynamic_cast<GpuDevice*>(ctx->device());
  if (*out == nullptr) {
    return NodeInternal(
        ctx, "GPU kernel ", ctx->op_kernel().type_string(),
        " runs on a device that is not a CUDA GPU: ", ctx->device()->name());
  }
  return absl::OkStatus();
}

absl::Status Launched(OpKernelContext* ctx, cudaError_t err) {
  if (err == cudaSuccess) return absl::OkStatus();
  return NodeInternal(ctx, "CUDA launch failed: ", cudaGetErrorName(err), " (",
                      cudaGetErrorString(err), ")");
}

template <typename T>
const T* In(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <typename T>
T* Out(Tensor* t) {
  return static_cast<T*>(t->raw_data());
}

// Calls fn(T{}) for T = float or double per `dtype`.
template <typename Fn>
absl::Status DispatchFloat(OpKernelContext* ctx, DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT:
      return fn(float{});
    case DT_DOUBLE:
      return fn(double{});
    default:
      return NodeInvalidArgument(ctx, "GPU kernel does not support ",
                                 DataTypeString(dtype));
  }
}

absl::Status AllocateOutput(OpKernelContext* ctx, GpuDevice* gpu, int index,
                            DataType dtype, const TensorShape& shape,
                            Tensor* out) {
  absl::Status s = gpu->AllocateTensor(dtype, shape, out);
  if (!s.ok()) return AttachDef(s, ctx->op_kernel().name());
  ctx->set_output(index, *out);
  return ctx->status();
}

// --- MatMul --------------------------------------------------------------

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                NodeInvalidArgument(ctx, "In[0] and In[1] must be matrices: ",
                                    a.shape().DebugString(), " ",
                                    b.shape().DebugString()));
    const int64_t m = transpose_a_ ? a.dim_size(1) : a.dim_size(0);
    const int64_t k = transpose_a_ ? a.dim_size(0) : a.dim_size(1);
    const int64_t kb = transpose_b_ ? b.dim_size(1) : b.dim_size(0);
    const int64_t n = transpose_b_ ? b.dim_size(0) : b.dim_size(1);
    OP_REQUIRES(ctx, k == kb,
                NodeInvalidArgument(ctx, "Matrix size-incompatible: In[0]: ",
                                    a.shape().DebugString(),
                                    ", In[1]: ", b.shape().DebugString()));
    Tensor out;
    OP_REQUIRES_OK(
        ctx, AllocateOutput(ctx, gpu, 0, a.dtype(), TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    if (k == 0) {
      OP_REQUIRES_OK(ctx, Launched(ctx, cudaMemsetAsync(
                                            out.raw_data(), 0, out.TotalBytes(),
                                            gpu->compute_stream())));
      return;
    }
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    const cublasOperation_t op_a = transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = static_cast<int>(transpose_a_ ? m : k);
    const int ldb = static_cast<int>(transpose_b_ ? k : n);
    cublasStatus_t st;
    {
      absl::MutexLock l(gpu->blas_mu());
      if (a.dtype() == DT_FLOAT) {
        const float one = 1, zero = 0;
        st = cublasSgemm(gpu->blas(), op_b, op_a, n, m, k, &one, In<float>(b),
                         ldb, In<float>(a), lda, &zero, Out<float>(&out), n);
      } else {
        const double one = 1, zero = 0;
        st = cublasDgemm(gpu->blas(), op_b, op_a, n, m, k, &one, In<double>(b),
                         ldb, In<double>(a), lda, &zero, Out<double>(&out), n);
      }
    }
    OP_REQUIRES(ctx, st == CUBLAS_STATUS_SUCCESS,
                NodeInternal(ctx, "cuBLAS gemm failed with status ",
                             static_cast<int>(st)));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// --- Element-wise --------------------------------------------------------

bool Broadcastable(const TensorShape& x, const TensorShape& y) {
  const int n = std::max(x.dims(), y.dims());
  for (int i = 0; i < n; ++i) {
    const int64_t a = i < x.dims() ? x.dim_size(x.dims() - 1 - i) : 1;
    const int64_t b = i < y.dims() ? y.dim_size(y.dims() - 1 - i) : 1;
    if (a != b && a != 1 && b != 1) return false;
  }
  return true;
}

// True if `v` is a vector (leading dims 1) along `full`'s last dimension.
bool IsRowOf(const TensorShape& v, const TensorShape& full) {
  if (v.dims() < 1 || full.dims() < 1 || v.dims() > full.dims()) return false;
  for (int i = 0; i + 1 < v.dims(); ++i) {
    if (v.dim_size(i) != 1) return false;
  }
  return v.dim_size(v.dims() - 1) == full.dim_size(full.dims() - 1);
}

// The strided indexing of x op y under NumPy broadcasting (shapes already
// known to be broadcastable): output dims right-aligned, stride 0 where an
// operand's dim is 1 or missing. Unimplemented beyond kMaxBroadcastRank.
absl::Status GeneralBroadcast(OpKernelContext* ctx, const TensorShape& xs,
                              const TensorShape& ys, TensorShape* out,
                              gpu::BroadcastIndexing* ix) {
  const int rank = std::max(xs.dims(), ys.dims());
  if (rank > gpu::kMaxBroadcastRank) {
    return AttachDef(
        absl::UnimplementedError(absl::StrCat(
            "GPU broadcasting supports up to ", gpu::kMaxBroadcastRank,
            " dimensions; got ", xs.DebugString(), " and ", ys.DebugString())),
        ctx->op_kernel().name());
  }
  ix->rank = rank;
  std::vector<int64_t> dims(rank);
  int64_t x_stride = 1, y_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int xi = d - (rank - xs.dims());
    const int yi = d - (rank - ys.dims());
    const int64_t a = xi >= 0 ? xs.dim_size(xi) : 1;
    const int64_t b = yi >= 0 ? ys.dim_size(yi) : 1;
    dims[d] = std::max(a, b);
    if (a == 0 || b == 0) dims[d] = 0;
    ix->out_dims[d] = dims[d];
    ix->x_strides[d] = a == 1 ? 0 : x_stride;
    ix->y_strides[d] = b == 1 ? 0 : y_stride;
    x_stride *= a;
    y_stride *= b;
  }
  return TensorShape::BuildTensorShape(dims, out);
}

// Picks operand modes and the output shape for x op y. `*general` is set
// when only strided indexing (GeneralBroadcast) can express the case.
absl::Status BroadcastModes(OpKernelContext* ctx, const Tensor& x,
                            const Tensor& y, Operand* xm, Operand* ym,
                            TensorShape* out, int64_t* row, bool* general) {
  *general = false;
  const TensorShape& xs = x.shape();
  const TensorShape& ys = y.shape();
  *xm = *ym = Operand::kFull;
  *row = 1;
  if (xs == ys) {
    *out = xs;
  } else if (y.NumElements() == 1 && ys.dims() <= xs.dims()) {
    *ym = Operand::kScalar;
    *out = xs;
  } else if (x.NumElements() == 1 && xs.dims() <= ys.dims()) {
    *xm = Operand::kScalar;
    *out = ys;
  } else if (IsRowOf(ys, xs)) {
    *ym = Operand::kRow;
    *out = xs;
    *row = xs.dim_size(xs.dims() - 1);
  } else if (IsRowOf(xs, ys)) {
    *xm = Operand::kRow;
    *out = ys;
    *row = ys.dim_size(ys.dims() - 1);
  } else if (!Broadcastable(xs, ys)) {
    return NodeInvalidArgument(ctx, "Incompatible shapes: ", xs.DebugString(),
                               " vs. ", ys.DebugString());
  } else {
    *general = true;
  }
  return absl::OkStatus();
}

class BinaryOpKernel : public OpKernel {
 public:
  BinaryOpKernel(OpKernelConstruction* ctx, BinaryOp op)
      : OpKernel(ctx), op_(op) {}

  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Operand xm, ym;
    TensorShape shape;
    int64_t row = 1;
    bool general = false;
    OP_REQUIRES_OK(ctx,
                   BroadcastModes(ctx, x, y, &xm, &ym, &shape, &row, &general));
    gpu::BroadcastIndexing indexing;
    if (general) {
      OP_REQUIRES_OK(
          ctx, GeneralBroadcast(ctx, x.shape(), y.shape(), &shape, &indexing));
    }
    Tensor out;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, gpu, 0, x.dtype(), shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchFloat(ctx, x.dtype(), [&](auto t) {
          using T = decltype(t);
          if (general) {
            return Launched(ctx,
                            gpu::LaunchBroadcastBinary<T>(
                                gpu->compute_stream(), op_, In<T>(x), In<T>(y),
                                Out<T>(&out), out.NumElements(), indexing));
          }
          return Launched(
              ctx, gpu::LaunchBinary<T>(gpu->compute_stream(), op_, In<T>(x),
                                        xm, In<T>(y), ym, Out<T>(&out),
                                        out.NumElements(), row));
        }));
  }

 private:
  const BinaryOp op_;
};

template <BinaryOp kOp>
class BinaryOpFor : public BinaryOpKernel {
 public:
  explicit BinaryOpFor(OpKernelConstruction* ctx) : BinaryOpKernel(ctx, kOp) {}
};

template <UnaryOp kOp>
class UnaryOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& x = ctx->input(0);
    Tensor out;
    OP_REQUIRES_OK(ctx,
                   AllocateOutput(ctx, gpu, 0, x.dtype(), x.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchFloat(ctx, x.dtype(), [&](auto t) {
          using T = decltype(t);
          return Launched(
              ctx, gpu::LaunchUnary<T>(gpu->compute_stream(), kOp, In<T>(x),
                                       Out<T>(&out), x.NumElements()));
        }));
  }
};

class ReluGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == f.shape(),
                NodeInvalidArgument(ctx,
                                    "gradients and features must have the "
                                    "same shape: ",
                                    g.shape().DebugString(), " vs. ",
                                    f.shape().DebugString()));
    Tensor out;
    OP_REQUIRES_OK(ctx,
                   AllocateOutput(ctx, gpu, 0, g.dtype(), g.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchFloat(ctx, g.dtype(), [&](auto t) {
                     using T = decltype(t);
                     return Launched(
                         ctx, gpu::LaunchReluGrad<T>(
                                  gpu->compute_stream(), In<T>(g), In<T>(f),
                                  Out<T>(&out), g.NumElements()));
                   }));
  }
};

class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format = "NHWC";
    if (ctx->HasAttr("data_format")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    }
    OP_REQUIRES(ctx, format == "NHWC",
                AttachDef(absl::UnimplementedError(
                              absl::StrCat("GPU BiasAdd supports data_format "
                                           "NHWC only, got ",
                                           format)),
                          name()));
  }
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& x = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, x.dims() >= 2,
                NodeInvalidArgument(ctx, "Input tensor must be at least 2D: ",
                                    x.shape().DebugString()));
    OP_REQUIRES(ctx, bias.dims() == 1,
                NodeInvalidArgument(
                    ctx, "Biases must be 1D: ", bias.shape().DebugString()));
    const int64_t c = x.dim_size(x.dims() - 1);
    OP_REQUIRES(ctx, bias.dim_size(0) == c,
                NodeInvalidArgument(ctx,
                                    "Must provide as many biases as the "
                                    "last dimension of the input tensor: ",
                                    bias.shape().DebugString(), " vs. ",
                                    x.shape().DebugString()));
    Tensor out;
    OP_REQUIRES_OK(ctx,
                   AllocateOutput(ctx, gpu, 0, x.dtype(), x.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchFloat(ctx, x.dtype(), [&](auto t) {
          using T = decltype(t);
          return Launched(
              ctx, gpu::LaunchBinary<T>(gpu->compute_stream(), BinaryOp::kAdd,
                                        In<T>(x), Operand::kFull, In<T>(bias),
                                        Operand::kRow, Out<T>(&out),
                                        x.NumElements(), c));
        }));
  }
};

// --- Reductions ----------------------------------------------------------

template <bool kMean>
class ReduceOp : public OpKernel {
 public:
  explicit ReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, ctx->input(1), &axes));
    const int rank = x.dims();
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) {
      int64_t norm = 0;
      OP_REQUIRES(
          ctx, NormalizeAxis(a, rank, &norm),
          NodeInvalidArgument(ctx, "Invalid reduction dimension (", a,
                              " for input with ", rank, " dimension(s)"));
      reduced[norm] = true;
    }
    std::vector<int64_t> out_dims;
    // Groups of consecutive non-trivial dims with the same flag.
    std::vector<std::pair<bool, int64_t>> groups;
    int64_t r = 1;
    for (int i = 0; i < rank; ++i) {
      const int64_t d = x.dim_size(i);
      if (reduced[i]) {
        r *= d;
        if (keep_dims_) out_dims.push_back(1);
      } else {
        out_dims.push_back(d);
      }
      if (d == 1) continue;
      if (!groups.empty() && groups.back().first == reduced[i]) {
        groups.back().second *= d;
      } else {
        groups.emplace_back(reduced[i], d);
      }
    }
    int64_t outer = 1, red = 1, inner = 1;
    size_t gi = 0;
    if (gi < groups.size() && !groups[gi].first) outer = groups[gi++].second;
    if (gi < groups.size() && groups[gi].first) red = groups[gi++].second;
    if (gi < groups.size() && !groups[gi].first) inner = groups[gi++].second;
    OP_REQUIRES(ctx, gi == groups.size(),
                AttachDef(absl::UnimplementedError(
                              absl::StrCat("GPU ", type_string(),
                                           " reduces one contiguous block of "
                                           "dimensions; got input ",
                                           x.shape().DebugString())),
                          name()));
    if (r == 0) red = 0;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx,
                   MakeOutputShape(*this, out_dims, x.dtype(), &out_shape));
    Tensor out;
    OP_REQUIRES_OK(ctx,
                   AllocateOutput(ctx, gpu, 0, x.dtype(), out_shape, &out));
    const double scale = kMean ? 1.0 / static_cast<double>(red) : 1.0;
    OP_REQUIRES_OK(ctx, DispatchFloat(ctx, x.dtype(), [&](auto t) {
                     using T = decltype(t);
                     return Launched(
                         ctx, gpu::LaunchReduce<T>(gpu->compute_stream(),
                                                   In<T>(x), Out<T>(&out),
                                                   outer, red, inner, scale));
                   }));
  }

 private:
  bool keep_dims_ = false;
};

// --- Softmax and cross-entropy ------------------------------------------

class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(
        ctx, logits.dims() >= 1,
        NodeInvalidArgument(ctx, "logits must have >= 1 dimension, got ",
                            logits.shape().DebugString()));
    const int64_t cols = logits.dim_size(logits.dims() - 1);
    const int64_t rows = cols == 0 ? 0 : logits.NumElements() / cols;
    Tensor out;
    OP_REQUIRES_OK(
        ctx, AllocateOutput(ctx, gpu, 0, logits.dtype(), logits.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchFloat(ctx, logits.dtype(), [&](auto t) {
          using T = decltype(t);
          return Launched(
              ctx, gpu::LaunchSoftmax<T>(gpu->compute_stream(), In<T>(logits),
                                         Out<T>(&out), rows, cols));
        }));
  }
};

class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    if (logits.shape() != labels.shape()) {
      OP_REQUIRES(
          ctx, Broadcastable(logits.shape(), labels.shape()),
          NodeInvalidArgument(ctx,
                              "logits and labels must be "
                              "broadcastable: logits_size=",
                              logits.shape().DebugString(),
                              " labels_size=", labels.shape().DebugString()));
      ctx->SetStatus(AttachDef(
          absl::UnimplementedError(
              "GPU SoftmaxCrossEntropyWithLogits needs logits and labels "
              "of the same shape"),
          name()));
      return;
    }
    OP_REQUIRES(ctx, logits.dims() == 2,
                NodeInvalidArgument(ctx, "logits and labels must be 2-D, got ",
                                    logits.shape().DebugString()));
    const int64_t rows = logits.dim_size(0), cols = logits.dim_size(1);
    Tensor loss, backprop;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, gpu, 0, logits.dtype(),
                                       TensorShape({rows}), &loss));
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, gpu, 1, logits.dtype(),
                                       logits.shape(), &backprop));
    OP_REQUIRES_OK(
        ctx, DispatchFloat(ctx, logits.dtype(), [&](auto t) {
          using T = decltype(t);
          return Launched(
              ctx, gpu::LaunchSoftmaxXent<T>(
                       gpu->compute_stream(), In<T>(logits), In<T>(labels),
                       Out<T>(&loss), Out<T>(&backprop), rows, cols));
        }));
  }
};

// --- Training and variables ---------------------------------------------

absl::Status RequireRef(OpKernelContext* ctx, int index) {
  if (ctx->input_is_ref(index)) return absl::OkStatus();
  return NodeInternal(ctx, "input ", index, " must be a reference");
}

class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    OP_REQUIRES_OK(ctx, RequireRef(ctx, 0));
    const Tensor& alpha = ctx->input(1);
    const Tensor& delta = ctx->input(2);
    {
      absl::MutexLock l(ctx->input_ref_mutex(0));
      Tensor var = ctx->mutable_input(0, /*lock_held=*/true);
      OP_REQUIRES(ctx, var.IsInitialized(),
                  AttachDef(absl::FailedPreconditionError(
                                absl::StrCat("Attempting to use uninitialized "
                                             "value ",
                                             def().input(0))),
                            name()));
      OP_REQUIRES(ctx, alpha.NumElements() == 1 && alpha.dims() == 0,
                  NodeInvalidArgument(ctx, "alpha is not a scalar: ",
                                      alpha.shape().DebugString()));
      OP_REQUIRES(ctx, var.shape() == delta.shape(),
                  NodeInvalidArgument(ctx,
                                      "var and delta do not have the same "
                                      "shape",
                                      var.shape().DebugString(), " ",
                                      delta.shape().DebugString()));
      OP_REQUIRES_OK(ctx, DispatchFloat(ctx, var.dtype(), [&](auto t) {
                       using T = decltype(t);
                       return Launched(
                           ctx,
                           gpu::LaunchApplyGradientDescent<T>(
                               gpu->compute_stream(), Out<T>(&var),
                               In<T>(alpha), In<T>(delta), var.NumElements()));
                     }));
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    OP_REQUIRES_OK(ctx, RequireRef(ctx, 0));
    const Tensor& rhs = ctx->input(1);
    {
      absl::MutexLock l(ctx->input_ref_mutex(0));
      Tensor lhs = ctx->mutable_input(0, /*lock_held=*/true);
      const bool same_shape = lhs.IsInitialized() && lhs.shape() == rhs.shape();
      OP_REQUIRES(ctx, !validate_shape_ || !lhs.IsInitialized() || same_shape,
                  NodeInvalidArgument(ctx,
                                      "Assign requires shapes of both "
                                      "tensors to match. lhs shape= ",
                                      lhs.shape().DebugString(), " rhs shape= ",
                                      rhs.shape().DebugString()));
      if (same_shape && lhs.dtype() == rhs.dtype()) {
        // In place, so earlier reads sharing the buffer see the new value.
        OP_REQUIRES_OK(ctx,
                       AttachDef(gpu->CopyDeviceToDevice(rhs, &lhs), name()));
      } else {
        Tensor fresh;
        OP_REQUIRES_OK(ctx, AttachDef(gpu->AllocateTensor(rhs.dtype(),
                                                          rhs.shape(), &fresh),
                                      name()));
        OP_REQUIRES_OK(ctx,
                       AttachDef(gpu->CopyDeviceToDevice(rhs, &fresh), name()));
        ctx->replace_ref_input(0, fresh, /*lock_held=*/true);
      }
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
};

// --- Identity, Const, Cast ----------------------------------------------

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    TensorProto proto;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    OP_REQUIRES_OK(ctx, AttachDef(TensorFromProto(proto, &value_), name()));
    DataType dtype;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES(
        ctx, value_.dtype() == dtype,
        NodeInvalidArgument(*this, "Type mismatch between value (",
                            DataTypeString(value_.dtype()), ") and dtype (",
                            DataTypeString(dtype), ")"));
  }
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    Tensor out;
    OP_REQUIRES_OK(ctx, AttachDef(gpu->CopyHostToDevice(value_, &out), name()));
    ctx->set_output(0, out);
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

template <typename Src, typename Dst>
void HostConvert(const Tensor& in, Tensor* out) {
  const Src* s = In<Src>(in);
  Dst* d = Out<Dst>(out);
  for (int64_t i = 0; i < in.NumElements(); ++i) d[i] = static_cast<Dst>(s[i]);
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
  }
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* gpu = nullptr;
    OP_REQUIRES_OK(ctx, GetGpu(ctx, &gpu));
    const Tensor& x = ctx->input(0);
    if (!GpuTypeInDeviceMemory(x.dtype())) {
      // Host-memory source (ints, bool): convert on the host, then copy.
      Tensor host(dst_, x.shape());
      OP_REQUIRES_OK(ctx, DispatchFloat(ctx, dst_, [&](auto t) {
                       using D = decltype(t);
                       switch (x.dtype()) {
                         case DT_INT32:
                           HostConvert<int32_t, D>(x, &host);
                           break;
                         case DT_INT64:
                           HostConvert<int64_t, D>(x, &host);
                           break;
                         case DT_BOOL:
                           HostConvert<bool, D>(x, &host);
                           break;
                         default:
                           return NodeInvalidArgument(
                               ctx, "GPU Cast does not support source type ",
                               DataTypeString(x.dtype()));
                       }
                       return absl::OkStatus();
                     }));
      Tensor out;
      OP_REQUIRES_OK(ctx, AttachDef(gpu->CopyHostToDevice(host, &out), name()));
      ctx->set_output(0, out);
      return;
    }
    Tensor out;
    OP_REQUIRES_OK(ctx, AllocateOutput(ctx, gpu, 0, dst_, x.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchFloat(ctx, x.dtype(), [&](auto s) {
                     using S = decltype(s);
                     return DispatchFloat(ctx, dst_, [&](auto d) {
                       using D = decltype(d);
                       return Launched(ctx, gpu::LaunchCast<S, D>(
                                                gpu->compute_stream(), In<S>(x),
                                                Out<D>(&out), x.NumElements()));
                     });
                   }));
  }

 private:
  DataType dst_ = DT_INVALID;
};

template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction* c) -> OpKernel* { return new K(c); };
}

const std::map<std::string, KernelFactory>& MathFactories() {
  static const auto* m = new std::map<std::string, KernelFactory>{
      {"MatMul", Factory<MatMulOp>()},
      {"BiasAdd", Factory<BiasAddOp>()},
      {"Relu", Factory<UnaryOpKernel<UnaryOp::kRelu>>()},
      {"ReluGrad", Factory<ReluGradOp>()},
      {"Add", Factory<BinaryOpFor<BinaryOp::kAdd>>()},
      {"AddV2", Factory<BinaryOpFor<BinaryOp::kAdd>>()},
      {"Sub", Factory<BinaryOpFor<BinaryOp::kSub>>()},
      {"Mul", Factory<BinaryOpFor<BinaryOp::kMul>>()},
      {"RealDiv", Factory<BinaryOpFor<BinaryOp::kDiv>>()},
      {"Neg", Factory<UnaryOpKernel<UnaryOp::kNeg>>()},
      {"Square", Factory<UnaryOpKernel<UnaryOp::kSquare>>()},
      {"Sum", Factory<ReduceOp<false>>()},
      {"Mean", Factory<ReduceOp<true>>()},
      {"Softmax", Factory<SoftmaxOp>()},
      {"SoftmaxCrossEntropyWithLogits", Factory<SoftmaxXentOp>()},
      {"ApplyGradientDescent", Factory<ApplyGradientDescentOp>()},
      {"Identity", Factory<IdentityOp>()},
      {"Const", Factory<ConstOp>()},
      {"Cast", Factory<CastOp>()},
      {"Variable", Factory<VariableOp>()},
      {"VariableV2", Factory<VariableOp>()},
      {"Assign", Factory<AssignOp>()},
  };
  return *m;
}

}  // namespace

KernelFactory GpuMathKernelFactory(const std::string& op) {
  auto it = MathFactories().find(op);
  return it == MathFactories().end() ? KernelFactory() : it->second;
}

}  // namespace stepflow
