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
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {
namespace {

struct LstmDims {
  int64_t batch = 0;
  int64_t input = 0;
  int64_t cell = 0;
};

// Checks inputs 0..7 (x, cs_prev, h_prev, w, wci, wcf, wco, b).
absl::Status CheckLstmInputs(OpKernelContext* ctx, bool use_peephole,
                             LstmDims* dims) {
  const OpKernel& op = ctx->op_kernel();
  static constexpr const char* kNames[] = {"x",   "cs_prev", "h_prev", "w",
                                           "wci", "wcf",     "wco",    "b"};
  static constexpr int kRanks[] = {2, 2, 2, 2, 1, 1, 1, 1};
  for (int k = 0; k < 8; ++k) {
    absl::Status s = RequireRank(op, ctx->input(k), kRanks[k], kNames[k]);
    if (!s.ok()) return s;
  }
  if (ctx->input(1).NumElements() == 0) {
    return NodeInvalidArgument(op, "cs_prev_tensor is empty, has shape: (",
                               ctx->input(1).dim_size(0), ",",
                               ctx->input(1).dim_size(1), ").");
  }
  dims->batch = ctx->input(0).dim_size(0);
  dims->input = ctx->input(0).dim_size(1);
  dims->cell = ctx->input(1).dim_size(1);
  const int64_t b = dims->batch, c = dims->cell;
  for (absl::Status s : {
           RequireDim(op, ctx->input(1), 0, b, "cs_prev.dims(0)", "batch_size"),
           RequireDim(op, ctx->input(2), 0, b, "h_prev.dims(0)", "batch_size"),
           RequireDim(op, ctx->input(2), 1, c, "h_prev.dims(1)", "cell_size"),
           RequireDim(op, ctx->input(3), 0, dims->input + c, "w.dim_size(0)",
                      "input_size + cell_size"),
           RequireDim(op, ctx->input(3), 1, 4 * c, "w.dim_size(1)",
                      "cell_size * 4"),
           RequireDim(op, ctx->input(7), 0, 4 * c, "b.dim_size(0)",
                      "cell_size * 4"),
       }) {
    if (!s.ok()) return s;
  }
  if (use_peephole) {
    for (int k = 4; k < 7; ++k) {
      absl::Status s =
          RequireDim(op, ctx->input(k), 0, c, kNames[k], "cell_size");
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// Allocates outputs first..first+n-1, each of `shape`.
absl::Status AllocateOutputs(OpKernelContext* ctx, int first, int n,
                             const TensorShape& shape,
                             std::vector<Tensor*>* out) {
  for (int k = first; k < first + n; ++k) {
    Tensor* t = nullptr;
    absl::Status s = ctx->allocate_output(k, shape, &t);
    if (!s.ok()) return s;
    out->push_back(t);
  }
  return absl::OkStatus();
}

class LSTMBlockCellOp : public OpKernel {
 public:
  explicit LSTMBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("forget_bias", &forget_bias_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cell_clip", &cell_clip_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &use_peephole_));
  }

  void Compute(OpKernelContext* ctx) override {
    LstmDims d;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, use_peephole_, &d));
    const int64_t B = d.batch, C = d.cell;
    std::vector<Tensor*> outs;
    OP_REQUIRES_OK(ctx, AllocateOutputs(ctx, 0, 7, TensorShape({B, C}), &outs));
    const std::vector<float> x = ToFloatVector(ctx->input(0));
    const std::vector<float> cs_prev = ToFloatVector(ctx->input(1));
    const std::vector<float> h_prev = ToFloatVector(ctx->input(2));
    const std::vector<float> w = ToFloatVector(ctx->input(3));
    const std::vector<float> b = ToFloatVector(ctx->input(7));
    std::vector<float> wci(C, 0.0f), wcf(C, 0.0f), wco(C, 0.0f);
    if (use_peephole_) {
      wci = ToFloatVector(ctx->input(4));
      wcf = ToFloatVector(ctx->input(5));
      wco = ToFloatVector(ctx->input(6));
    }
    std::vector<float> gates(B * 4 * C);
    ConcatMatMul(x.data(), d.input, h_prev.data(), C, w.data(), b.data(), B,
                 4 * C, gates.data());
    // i, cs, f, o, ci, co, h.
    std::vector<std::vector<float>> r(7, std::vector<float>(B * C));
    for (int64_t n = 0; n < B; ++n) {
      const float* g = &gates[n * 4 * C];
      for (int64_t j = 0; j < C; ++j) {
        const int64_t at = n * C + j;
        const float cp = cs_prev[at];
        const float i = Sigmoid(g[j] + wci[j] * cp);
        const float ci = std::tanh(g[C + j]);
        const float f = Sigmoid(g[2 * C + j] + forget_bias_ + wcf[j] * cp);
        float cs = ci * i + cp * f;
        if (cell_clip_ > 0.0f) cs = std::clamp(cs, -cell_clip_, cell_clip_);
        const float o = Sigmoid(g[3 * C + j] + wco[j] * cs);
        const float co = std::tanh(cs);
        r[0][at] = i;
        r[1][at] = cs;
        r[2][at] = f;
        r[3][at] = o;
        r[4][at] = ci;
        r[5][at] = co;
        r[6][at] = co * o;
      }
    }
    for (int k = 0; k < 7; ++k) FromFloatVector(r[k], outs[k]);
  }

 private:
  float forget_bias_ = 1.0f;
  float cell_clip_ = 3.0f;
  bool use_peephole_ = false;
};

class LSTMBlockCellGradOp : public OpKernel {
 public:
  explicit LSTMBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &use_peephole_));
  }

  void Compute(OpKernelContext* ctx) override {
    LstmDims d;
    OP_REQUIRES_OK(ctx, CheckLstmInputs(ctx, use_peephole_, &d));
    const int64_t B = d.batch, C = d.cell;
    static constexpr const char* kNames[] = {"i",  "cs", "f",       "o",
                                             "ci", "co", "cs_grad", "h_grad"};
    for (int k = 8; k < 16; ++k) {
      const Tensor& t = ctx->input(k);
      OP_REQUIRES(ctx,
                  t.dims() == 2 && t.dim_size(0) == B && t.dim_size(1) == C,
                  NodeInvalidArgument(ctx, kNames[k - 8], " must be [", B, ",",
                                      C, "] but is ", t.shape().DebugString()));
    }
    Tensor* cs_prev_grad = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({B, C}), &cs_prev_grad));
    Tensor* dicfo_t = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({B, 4 * C}), &dicfo_t));
    std::vector<Tensor*> peep;
    OP_REQUIRES_OK(ctx, AllocateOutputs(ctx, 2, 3, TensorShape({C}), &peep));
    std::vector<float> wci(C, 0.0f), wcf(C, 0.0f), wco(C, 0.0f);
    if (use_peephole_) {
      wci = ToFloatVector(ctx->input(4));
      wcf = ToFloatVector(ctx->input(5));
      wco = ToFloatVector(ctx->input(6));
    }
    const std::vector<float> cs_prev = ToFloatVector(ctx->input(1));
    std::vector<std::vector<float>> v;  // i, cs, f, o, ci, co, cs_grad, h_grad
    for (int k = 8; k < 16; ++k) v.push_back(ToFloatVector(ctx->input(k)));
    std::vector<float> dcs_prev(B * C), dicfo(B * 4 * C);
    std::vector<float> dwci(C, 0.0f), dwcf(C, 0.0f), dwco(C, 0.0f);
    for (int64_t n = 0; n < B; ++n) {
      float* g = &dicfo[n * 4 * C];
      for (int64_t j = 0; j < C; ++j) {
        const int64_t at = n * C + j;
        const float i = v[0][at], cs = v[1][at], f = v[2][at], o = v[3][at];
        const float ci = v[4][at], co = v[5][at];
        const float cs_grad = v[6][at], h_grad = v[7][at];
        const float cp = cs_prev[at];
        const float d_o = o * (1.0f - o) * h_grad * co;
        float dcs = (1.0f - co * co) * h_grad * o + cs_grad;
        if (use_peephole_) dcs += d_o * wco[j];
        const float di = i * (1.0f - i) * dcs * ci;
        const float df = f * (1.0f - f) * dcs * cp;
        const float dci = (1.0f - ci * ci) * dcs * i;
        g[j] = di;
        g[C + j] = dci;
        g[2 * C + j] = df;
        g[3 * C + j] = d_o;
        dcs_prev[at] = dcs * f;
        if (use_peephole_) {
          dcs_prev[at] += di * wci[j] + df * wcf[j];
          dwci[j] += di * cp;
          dwcf[j] += df * cp;
          dwco[j] += d_o * cs;
        }
      }
    }
    FromFloatVector(dcs_prev, cs_prev_grad);
    FromFloatVector(dicfo, dicfo_t);
    FromFloatVector(dwci, peep[0]);
    FromFloatVector(dwcf, peep[1]);
    FromFloatVector(dwco, peep[2]);
  }

 private:
  bool use_peephole_ = false;
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
