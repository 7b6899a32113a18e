// BlockLSTM, BlockLSTMV2 and their gradients BlockLSTMGrad,
// BlockLSTMGradV2: the LSTM cell of lstm_cell.h run over a sequence, for
// half and float (half widens to float for the arithmetic).
//
// x is [time, batch, input]; step t < seq_len_max runs the cell on x[t]
// with the previous step's cs and h (cs_prev, h_prev at t = 0); the seven
// outputs are [time, batch, cell] and zero from seq_len_max on (where
// TensorFlow leaves them unset). BlockLSTM
// uses the ICFO gate layout and forget_bias; BlockLSTMV2 the IFCO layout
// and no forget bias. The gradient ops run the cell backward from
// seq_len_max - 1 to 0, adding each step's cs and h gradients to those
// fed for that step, and return the gradients of x (zero past
// seq_len_max), cs_prev, h_prev, w, the peepholes (zero without
// use_peephole) and b, summed over the steps.
// Errors (InvalidArgument naming the node): a seq_len_max that is not a
// scalar or outside [0, time]; inputs of the wrong rank or inconsistent
// sizes.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/lstm_cell.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {
namespace {

// Checks input 0 (seq_len_max) against x's time dimension.
absl::Status ReadSeqLenMax(OpKernelContext* ctx, int64_t* seq_len_max) {
  const Tensor& t = ctx->input(0);
  if (t.dims() != 0) {
    return NodeInvalidArgument(ctx, "seq_len_max must be a scalar, but is ",
                               t.shape().DebugString());
  }
  *seq_len_max = t.scalar<int64_t>();
  const int64_t time =
      ctx->input(1).dims() == 3 ? ctx->input(1).dim_size(0) : 0;
  if (*seq_len_max < 0 || *seq_len_max > time) {
    return NodeInvalidArgument(ctx, "seq_len_max (", *seq_len_max,
                               ") must be in [0, ", time, "]");
  }
  return absl::OkStatus();
}

template <bool kV2>
class BlockLSTMOp : public OpKernel {
 public:
  explicit BlockLSTMOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kV2) {
      p_.forget_bias = 0.0f;
      p_.ifco = true;
    } else {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("forget_bias", &p_.forget_bias));
    }
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cell_clip", &p_.cell_clip));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &p_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    LstmCellParams p = p_;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, 1, 3, /*reject_empty=*/false, &p));
    int64_t seq_len_max = 0;
    OP_REQUIRES_OK(ctx, ReadSeqLenMax(ctx, &seq_len_max));
    const int64_t T = ctx->input(1).dim_size(0);
    const int64_t step = p.batch * p.cell;
    const TensorShape shape({T, p.batch, p.cell});
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, shape, DT_FLOAT));
    Tensor* outs[7] = {};
    for (int k = 0; k < 7; ++k) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shape, &outs[k]));
    }
    const LstmWeightData wt(ctx, 1, p);
    const FloatInput x(ctx->input(1));
    const FloatInput cs0(ctx->input(2));
    const FloatInput h0(ctx->input(3));
    ActivationData act(T * step);
    for (int64_t t = 0; t < seq_len_max; ++t) {
      const float* cs_prev = cs0.data();
      const float* h_prev = h0.data();
      if (t > 0) {
        cs_prev = act.data[1].data() + (t - 1) * step;
        h_prev = act.data[6].data() + (t - 1) * step;
      }
      LstmCellForward(p, wt.view, x.data() + t * p.batch * p.input, cs_prev,
                      h_prev, act.view(t * step));
    }
    for (int k = 0; k < 7; ++k) FromFloatVector(act.data[k], outs[k]);
  }

 private:
  LstmCellParams p_;
};

template <bool kV2>
class BlockLSTMGradOp : public OpKernel {
 public:
  explicit BlockLSTMGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &p_.use_peephole));
    p_.ifco = kV2;
  }

  void Compute(OpKernelContext* ctx) override {
    LstmCellParams p = p_;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, 1, 3, /*reject_empty=*/false, &p));
    int64_t seq_len_max = 0;
    OP_REQUIRES_OK(ctx, ReadSeqLenMax(ctx, &seq_len_max));
    const int64_t T = ctx->input(1).dim_size(0);
    const int64_t B = p.batch, C = p.cell, I = p.input, K = I + C;
    const TensorShape seq_shape({T, B, C});
    static constexpr const char* kNames[] = {
        "i", "cs", "f", "o", "ci", "co", "h", "cs_grad", "h_grad"};
    for (int k = 9; k < 18; ++k) {
      OP_REQUIRES(ctx, ctx->input(k).shape() == seq_shape,
                  NodeInvalidArgument(ctx, kNames[k - 9], " must be ",
                                      seq_shape.DebugString(), " but is ",
                                      ctx->input(k).shape().DebugString()));
    }
    const TensorShape shapes[8] = {
        TensorShape({T, B, I}),  TensorShape({B, C}), TensorShape({B, C}),
        TensorShape({K, 4 * C}), TensorShape({C}),    TensorShape({C}),
        TensorShape({C}),        TensorShape({4 * C})};
    Tensor* outs[8] = {};
    for (int k = 0; k < 8; ++k) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shapes[k], &outs[k]));
    }
    const LstmWeightData wt(ctx, 1, p);
    const FloatInput x(ctx->input(1));
    const FloatInput cs0(ctx->input(2));
    const FloatInput h0(ctx->input(3));
    std::vector<std::vector<float>> v;  // i, cs, f, o, ci, co, h, grads
    for (int k = 9; k < 18; ++k) v.push_back(ToFloatVector(ctx->input(k)));
    const int64_t step = B * C;
    std::vector<float> x_grad(T * B * I, 0.0f), w_grad(K * 4 * C, 0.0f);
    std::vector<float> b_grad(4 * C, 0.0f), dwci(C, 0.0f), dwcf(C, 0.0f),
        dwco(C, 0.0f);
    std::vector<float> dcs_next(step, 0.0f), dh_next(step, 0.0f);
    std::vector<float> cs_grad(step), h_grad(step), dcs_prev(step);
    std::vector<float> dgates(B * 4 * C), dxh(B * K), xh(B * K);
    for (int64_t t = seq_len_max - 1; t >= 0; --t) {
      const int64_t at = t * step;
      const float* cs_prev = t == 0 ? cs0.data() : v[1].data() + at - step;
      const float* h_prev = t == 0 ? h0.data() : v[6].data() + at - step;
      for (int64_t e = 0; e < step; ++e) {
        cs_grad[e] = v[7][at + e] + dcs_next[e];
        h_grad[e] = v[8][at + e] + dh_next[e];
      }
      const LstmActivations act = {v[0].data() + at, v[1].data() + at,
                                   v[2].data() + at, v[3].data() + at,
                                   v[4].data() + at, v[5].data() + at,
                                   nullptr};
      LstmCellBackward(p, wt.view, cs_prev, act, cs_grad.data(), h_grad.data(),
                       dcs_prev.data(), dgates.data(), dwci.data(), dwcf.data(),
                       dwco.data());
      MatMulTransposed(dgates.data(), wt.view.w, B, 4 * C, K, dxh.data());
      const float* x_t = x.data() + t * B * I;
      for (int64_t n = 0; n < B; ++n) {
        for (int64_t j = 0; j < I; ++j) {
          x_grad[(t * B + n) * I + j] = dxh[n * K + j];
          xh[n * K + j] = x_t[n * I + j];
        }
        for (int64_t j = 0; j < C; ++j) {
          dh_next[n * C + j] = dxh[n * K + I + j];
          xh[n * K + I + j] = h_prev[n * C + j];
        }
        for (int64_t j = 0; j < 4 * C; ++j) b_grad[j] += dgates[n * 4 * C + j];
      }
      AddTransposedProduct(xh.data(), dgates.data(), B, K, 4 * C,
                           w_grad.data());
      dcs_next = dcs_prev;
    }
    FromFloatVector(x_grad, outs[0]);
    FromFloatVector(dcs_next, outs[1]);
    FromFloatVector(dh_next, outs[2]);
    FromFloatVector(w_grad, outs[3]);
    FromFloatVector(dwci, outs[4]);
    FromFloatVector(dwcf, outs[5]);
    FromFloatVector(dwco, outs[6]);
    FromFloatVector(b_grad, outs[7]);
  }

 private:
  LstmCellParams p_;
};

#define SF_REGISTER_BLOCK_LSTM(T)                                        \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("BlockLSTM").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      BlockLSTMOp<false>);                                               \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("BlockLSTMV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      BlockLSTMOp<true>);                                                \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("BlockLSTMGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      BlockLSTMGradOp<false>);                                           \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("BlockLSTMGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BlockLSTMGradOp<true>);
SF_REGISTER_BLOCK_LSTM(half)
SF_REGISTER_BLOCK_LSTM(float)
#undef SF_REGISTER_BLOCK_LSTM

}  // namespace
}  // namespace stepflow
