#include "runtime/kernels/lstm_cell.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {

absl::Status CheckLstmInputs(OpKernelContext* ctx, int first, int x_rank,
                             bool reject_empty, LstmCellParams* p) {
  const OpKernel& op = ctx->op_kernel();
  static constexpr const char* kNames[] = {"x",   "cs_prev", "h_prev", "w",
                                           "wci", "wcf",     "wco",    "b"};
  const int ranks[] = {x_rank, 2, 2, 2, 1, 1, 1, 1};
  for (int k = 0; k < 8; ++k) {
    absl::Status s =
        RequireRank(op, ctx->input(first + k), ranks[k], kNames[k]);
    if (!s.ok()) return s;
  }
  const Tensor& x = ctx->input(first);
  const Tensor& cs_prev = ctx->input(first + 1);
  if (reject_empty && cs_prev.NumElements() == 0) {
    return NodeInvalidArgument(op, "cs_prev_tensor is empty, has shape: (",
                               cs_prev.dim_size(0), ",", cs_prev.dim_size(1),
                               ").");
  }
  p->batch = x.dim_size(x_rank - 2);
  p->input = x.dim_size(x_rank - 1);
  p->cell = cs_prev.dim_size(1);
  const int64_t b = p->batch, c = p->cell;
  const Tensor& h_prev = ctx->input(first + 2);
  const Tensor& w = ctx->input(first + 3);
  for (absl::Status s : {
           RequireDim(op, cs_prev, 0, b, "cs_prev.dims(0)", "batch_size"),
           RequireDim(op, h_prev, 0, b, "h_prev.dims(0)", "batch_size"),
           RequireDim(op, h_prev, 1, c, "h_prev.dims(1)", "cell_size"),
           RequireDim(op, w, 0, p->input + c, "w.dim_size(0)",
                      "input_size + cell_size"),
           RequireDim(op, w, 1, 4 * c, "w.dim_size(1)", "cell_size * 4"),
           RequireDim(op, ctx->input(first + 7), 0, 4 * c, "b.dim_size(0)",
                      "cell_size * 4"),
       }) {
    if (!s.ok()) return s;
  }
  if (p->use_peephole) {
    for (int k = 4; k < 7; ++k) {
      absl::Status s =
          RequireDim(op, ctx->input(first + k), 0, c, kNames[k], "cell_size");
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

LstmWeightData::LstmWeightData(OpKernelContext* ctx, int first,
                               const LstmCellParams& p)
    : w(ctx->input(first + 3)),
      b(ctx->input(first + 7)),
      wci(ctx->input(first + 4)),
      wcf(ctx->input(first + 5)),
      wco(ctx->input(first + 6)) {
  view.w = w.data();
  view.b = b.data();
  if (!p.use_peephole) return;
  view.wci = wci.data();
  view.wcf = wcf.data();
  view.wco = wco.data();
}

void LstmCellForward(const LstmCellParams& p, const LstmWeights& wt,
                     const float* x, const float* cs_prev, const float* h_prev,
                     const LstmActivations& out) {
  const int64_t B = p.batch, C = p.cell;
  std::vector<float> gates(B * 4 * C);
  ConcatMatMul(x, p.input, h_prev, C, wt.w, wt.b, B, 4 * C, gates.data());
  for (int64_t n = 0; n < B; ++n) {
    const float* g = &gates[n * 4 * C];
    for (int64_t j = 0; j < C; ++j) {
      const int64_t at = n * C + j;
      const float cp = cs_prev[at];
      float i_in = g[p.i_offset() + j];
      float f_in = g[p.f_offset() + j] + p.forget_bias;
      if (p.use_peephole) {
        i_in += wt.wci[j] * cp;
        f_in += wt.wcf[j] * cp;
      }
      const float i = Sigmoid(i_in);
      const float ci = std::tanh(g[p.ci_offset() + j]);
      const float f = Sigmoid(f_in);
      float cs = ci * i + cp * f;
      if (p.cell_clip > 0.0f) cs = std::clamp(cs, -p.cell_clip, p.cell_clip);
      float o_in = g[p.o_offset() + j];
      if (p.use_peephole) o_in += wt.wco[j] * cs;
      const float o = Sigmoid(o_in);
      const float co = std::tanh(cs);
      out.i[at] = i;
      out.cs[at] = cs;
      out.f[at] = f;
      out.o[at] = o;
      out.ci[at] = ci;
      out.co[at] = co;
      out.h[at] = co * o;
    }
  }
}

void LstmCellBackward(const LstmCellParams& p, const LstmWeights& wt,
                      const float* cs_prev, const LstmActivations& act,
                      const float* cs_grad, const float* h_grad,
                      float* cs_prev_grad, float* dgates, float* dwci,
                      float* dwcf, float* dwco) {
  const int64_t B = p.batch, C = p.cell;
  for (int64_t n = 0; n < B; ++n) {
    float* g = &dgates[n * 4 * C];
    for (int64_t j = 0; j < C; ++j) {
      const int64_t at = n * C + j;
      const float i = act.i[at], cs = act.cs[at], f = act.f[at];
      const float o = act.o[at], ci = act.ci[at], co = act.co[at];
      const float cp = cs_prev[at];
      const float d_o = o * (1.0f - o) * h_grad[at] * co;
      float dcs = (1.0f - co * co) * h_grad[at] * o + cs_grad[at];
      if (p.use_peephole) dcs += d_o * wt.wco[j];
      const float di = i * (1.0f - i) * dcs * ci;
      const float df = f * (1.0f - f) * dcs * cp;
      const float dci = (1.0f - ci * ci) * dcs * i;
      g[p.i_offset() + j] = di;
      g[p.ci_offset() + j] = dci;
      g[p.f_offset() + j] = df;
      g[p.o_offset() + j] = d_o;
      cs_prev_grad[at] = dcs * f;
      if (p.use_peephole) {
        cs_prev_grad[at] += di * wt.wci[j] + df * wt.wcf[j];
        dwci[j] += di * cp;
        dwcf[j] += df * cp;
        dwco[j] += d_o * cs;
      }
    }
  }
}

}  // namespace stepflow
