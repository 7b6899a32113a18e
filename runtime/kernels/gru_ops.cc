// GRUBlockCell and GRUBlockCellGrad: one step of a GRU, float only.
//
// Forward (x [batch, input], h_prev [batch, cell], w_ru [input + cell,
// 2 * cell], w_c [input + cell, cell], b_ru [2 * cell], b_c [cell]):
//   [r, u] = sigmoid([x, h_prev] * w_ru + b_ru)
//   c = tanh([x, r * h_prev] * w_c + b_c);  h = u * h_prev + (1 - u) * c
// Backward, from the forward's r, u, c and d_h:
//   d_c_bar = d_h (1 - u) (1 - c^2);  d_u_bar = d_h (h_prev - c) u (1 - u)
//   [d_x2, d_hr] = d_c_bar * w_c^T;   d_r_bar = d_hr h_prev r (1 - r)
//   [d_x1, d_h1] = [d_r_bar, d_u_bar] * w_ru^T
//   d_x = d_x1 + d_x2;  d_h_prev = d_hr r + d_h u + d_h1
// Errors (InvalidArgument naming the node): inputs of the wrong rank or of
// sizes inconsistent with x's batch and input and h_prev's cell size.
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {
namespace {

struct GruDims {
  int64_t batch = 0;
  int64_t input = 0;
  int64_t cell = 0;
};

// Checks inputs 0..5 (x, h_prev, w_ru, w_c, b_ru, b_c).
absl::Status CheckGruInputs(OpKernelContext* ctx, GruDims* dims) {
  const OpKernel& op = ctx->op_kernel();
  static constexpr const char* kNames[] = {"x",   "h_prev", "w_ru",
                                           "w_c", "b_ru",   "b_c"};
  static constexpr int kRanks[] = {2, 2, 2, 2, 1, 1};
  for (int k = 0; k < 6; ++k) {
    absl::Status s = RequireRank(op, ctx->input(k), kRanks[k], kNames[k]);
    if (!s.ok()) return s;
  }
  dims->batch = ctx->input(0).dim_size(0);
  dims->input = ctx->input(0).dim_size(1);
  dims->cell = ctx->input(1).dim_size(1);
  const int64_t b = dims->batch, c = dims->cell, k = dims->input + c;
  for (absl::Status s : {
           RequireDim(op, ctx->input(1), 0, b, "h_prev.dims(0)", "batch_size"),
           RequireDim(op, ctx->input(2), 0, k, "w_ru.dim_size(0)",
                      "input_size + cell_size"),
           RequireDim(op, ctx->input(2), 1, 2 * c, "w_ru.dim_size(1)",
                      "cell_size * 2"),
           RequireDim(op, ctx->input(3), 0, k, "w_c.dim_size(0)",
                      "input_size + cell_size"),
           RequireDim(op, ctx->input(3), 1, c, "w_c.dim_size(1)", "cell_size"),
           RequireDim(op, ctx->input(4), 0, 2 * c, "b_ru.dim_size(0)",
                      "cell_size * 2"),
           RequireDim(op, ctx->input(5), 0, c, "b_c.dim_size(0)", "cell_size"),
       }) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

class GRUBlockCellOp : public OpKernel {
 public:
  explicit GRUBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    GruDims d;
    OP_REQUIRES_OK(ctx, CheckGruInputs(ctx, &d));
    const int64_t B = d.batch, C = d.cell;
    Tensor* out[4] = {};
    for (int k = 0; k < 4; ++k) {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(k, TensorShape({B, C}), &out[k]));
    }
    const float* x = ctx->input(0).base<float>();
    const float* h_prev = ctx->input(1).base<float>();
    std::vector<float> ru(B * 2 * C);
    ConcatMatMul(x, d.input, h_prev, C, ctx->input(2).base<float>(),
                 ctx->input(4).base<float>(), B, 2 * C, ru.data());
    float* r = out[0]->base<float>();
    float* u = out[1]->base<float>();
    std::vector<float> hr(B * C);
    for (int64_t n = 0; n < B; ++n) {
      for (int64_t j = 0; j < C; ++j) {
        r[n * C + j] = Sigmoid(ru[n * 2 * C + j]);
        u[n * C + j] = Sigmoid(ru[n * 2 * C + C + j]);
        hr[n * C + j] = h_prev[n * C + j] * r[n * C + j];
      }
    }
    float* c = out[2]->base<float>();
    ConcatMatMul(x, d.input, hr.data(), C, ctx->input(3).base<float>(),
                 ctx->input(5).base<float>(), B, C, c);
    float* h = out[3]->base<float>();
    for (int64_t at = 0; at < B * C; ++at) {
      c[at] = std::tanh(c[at]);
      h[at] = u[at] * h_prev[at] + (1.0f - u[at]) * c[at];
    }
  }
};

class GRUBlockCellGradOp : public OpKernel {
 public:
  explicit GRUBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    GruDims d;
    OP_REQUIRES_OK(ctx, CheckGruInputs(ctx, &d));
    const int64_t B = d.batch, C = d.cell, I = d.input, K = I + C;
    static constexpr const char* kNames[] = {"r", "u", "c", "d_h"};
    for (int k = 6; k < 10; ++k) {
      OP_REQUIRES_OK(ctx,
                     RequireMatrix(*this, ctx->input(k), B, C, kNames[k - 6]));
    }
    Tensor *d_x = nullptr, *d_h_prev = nullptr, *d_c_bar = nullptr,
           *d_ru = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({B, I}), &d_x));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({B, C}), &d_h_prev));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({B, C}), &d_c_bar));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({B, 2 * C}), &d_ru));
    const float* h_prev = ctx->input(1).base<float>();
    const float* r = ctx->input(6).base<float>();
    const float* u = ctx->input(7).base<float>();
    const float* c = ctx->input(8).base<float>();
    const float* d_h = ctx->input(9).base<float>();
    float* dc = d_c_bar->base<float>();
    float* dru = d_ru->base<float>();
    for (int64_t n = 0; n < B; ++n) {
      for (int64_t j = 0; j < C; ++j) {
        const int64_t at = n * C + j;
        dc[at] = d_h[at] * (1.0f - u[at]) * (1.0f - c[at] * c[at]);
        dru[n * 2 * C + C + j] =
            d_h[at] * (h_prev[at] - c[at]) * u[at] * (1.0f - u[at]);
      }
    }
    // [d_x2, d_hr] = d_c_bar * w_c^T.
    std::vector<float> dxh2(B * K);
    MatMulTransposed(dc, ctx->input(3).base<float>(), B, C, K, dxh2.data());
    for (int64_t n = 0; n < B; ++n) {
      for (int64_t j = 0; j < C; ++j) {
        const int64_t at = n * C + j;
        dru[n * 2 * C + j] =
            dxh2[n * K + I + j] * h_prev[at] * r[at] * (1.0f - r[at]);
      }
    }
    std::vector<float> dxh1(B * K);
    MatMulTransposed(dru, ctx->input(2).base<float>(), B, 2 * C, K,
                     dxh1.data());
    float* dx = d_x->base<float>();
    float* dhp = d_h_prev->base<float>();
    for (int64_t n = 0; n < B; ++n) {
      for (int64_t j = 0; j < I; ++j) {
        dx[n * I + j] = dxh1[n * K + j] + dxh2[n * K + j];
      }
      for (int64_t j = 0; j < C; ++j) {
        const int64_t at = n * C + j;
        dhp[at] =
            dxh2[n * K + I + j] * r[at] + d_h[at] * u[at] + dxh1[n * K + I + j];
      }
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("GRUBlockCell").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    GRUBlockCellOp);
REGISTER_KERNEL_BUILDER(
    Name("GRUBlockCellGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    GRUBlockCellGradOp);

}  // namespace
}  // namespace stepflow
