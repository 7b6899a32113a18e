// LSTMBlockCell and LSTMBlockCellGrad: one step of an LSTM with optional
// peephole connections and cell clipping, for half and float (half widens
// to float for the arithmetic).
//
// Forward (x [batch, input], cs_prev and h_prev [batch, cell], w
// [input + cell, 4 * cell], b [4 * cell], peepholes wci, wcf, wco [cell]):
//   [i, ci, f, o] = [x, h_prev] * w + b        (gate blocks in that order)
//   i  = sigmoid(i + wci * cs_prev)   f = sigmoid(f + forget_bias +
//   ci = tanh(ci)                                  wcf * cs_prev)
//   cs = clip(ci * i + cs_prev * f, cell_clip)   (no clip when <= 0)
//   o  = sigmoid(o + wco * cs);  co = tanh(cs);  h = co * o
// (peephole terms only with use_peephole).
// Backward, from the forward's values and cs_grad, h_grad:
//   do = o (1 - o) h_grad co;  dcs = (1 - co^2) h_grad o + cs_grad
//   (+ do wco);  di = i (1 - i) dcs ci;  df = f (1 - f) dcs cs_prev;
//   dci = (1 - ci^2) dcs i;  dicfo = [di, dci, df, do];
//   cs_prev_grad = dcs f (+ di wci + df wcf); the peephole gradients are
//   the batch sums of di cs_prev, df cs_prev and do cs (zero without
//   use_peephole).
// Errors (InvalidArgument naming the node): inputs of the wrong rank, an
// empty cs_prev (no batch or no cell), or inputs of sizes inconsistent with x's
// batch and input and cs_prev's cell size.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/lstm_cell.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {
namespace {

class LSTMBlockCellOp : public OpKernel {
 public:
  explicit LSTMBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("forget_bias", &p_.forget_bias));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cell_clip", &p_.cell_clip));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &p_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    LstmCellParams p = p_;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, 0, 2, /*reject_empty=*/true, &p));
    const TensorShape shape({p.batch, p.cell});
    Tensor* outs[7] = {};
    for (int k = 0; k < 7; ++k) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shape, &outs[k]));
    }
    const LstmWeightData wt(ctx, 0, p);
    ActivationData act(p.batch * p.cell);
    LstmCellForward(p, wt.view, FloatInput(ctx->input(0)).data(),
                    FloatInput(ctx->input(1)).data(),
                    FloatInput(ctx->input(2)).data(), act.view());
    for (int k = 0; k < 7; ++k) FromFloatVector(act.data[k], outs[k]);
  }

 private:
  LstmCellParams p_;
};

class LSTMBlockCellGradOp : public OpKernel {
 public:
  explicit LSTMBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &p_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    LstmCellParams p = p_;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, 0, 2, /*reject_empty=*/true, &p));
    const int64_t B = p.batch, C = p.cell;
    static constexpr const char* kNames[] = {"i",  "cs", "f",       "o",
                                             "ci", "co", "cs_grad", "h_grad"};
    for (int k = 8; k < 16; ++k) {
      OP_REQUIRES_OK(ctx,
                     RequireMatrix(*this, ctx->input(k), B, C, kNames[k - 8]));
    }
    Tensor* outs[5] = {};
    const TensorShape shapes[5] = {TensorShape({B, C}), TensorShape({B, 4 * C}),
                                   TensorShape({C}), TensorShape({C}),
                                   TensorShape({C})};
    for (int k = 0; k < 5; ++k) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shapes[k], &outs[k]));
    }
    const LstmWeightData wt(ctx, 0, p);
    std::vector<std::vector<float>> v;  // i, cs, f, o, ci, co, cs/h grads
    for (int k = 8; k < 16; ++k) v.push_back(ToFloatVector(ctx->input(k)));
    const LstmActivations act = {v[0].data(), v[1].data(), v[2].data(),
                                 v[3].data(), v[4].data(), v[5].data(),
                                 nullptr};
    std::vector<float> dcs_prev(B * C), dicfo(B * 4 * C);
    std::vector<float> dwci(C, 0.0f), dwcf(C, 0.0f), dwco(C, 0.0f);
    LstmCellBackward(p, wt.view, FloatInput(ctx->input(1)).data(), act,
                     v[6].data(), v[7].data(), dcs_prev.data(), dicfo.data(),
                     dwci.data(), dwcf.data(), dwco.data());
    FromFloatVector(dcs_prev, outs[0]);
    FromFloatVector(dicfo, outs[1]);
    FromFloatVector(dwci, outs[2]);
    FromFloatVector(dwcf, outs[3]);
    FromFloatVector(dwco, outs[4]);
  }

 private:
  LstmCellParams p_;
};

REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCell").Device(DEVICE_CPU).TypeConstraint<half>("T"),
    LSTMBlockCellOp);
REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCell").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    LSTMBlockCellOp);
REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCellGrad").Device(DEVICE_CPU).TypeConstraint<half>("T"),
    LSTMBlockCellGradOp);
REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCellGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    LSTMBlockCellGradOp);

}  // namespace
}  // namespace stepflow
