// One LSTM step in float over a batch, forward and backward: the cell that
// LSTMBlockCell(Grad) run once and BlockLSTM(V2)(Grad) run per time step.
//
// Gates are the four column blocks of the [batch, 4 * cell] pre-activation
// product [x, h_prev] * w + b, in ICFO order (i, ci, f, o: LSTMBlockCell,
// BlockLSTM) or IFCO order (i, f, ci, o: BlockLSTMV2). The equations are
// stated in lstm_ops.cc. Peephole weights are read only with use_peephole.
//
// Thread-safety: stateless. Errors: CheckLstmInputs reports inconsistent
// shapes (InvalidArgument naming the node); the steps assume checked
// shapes.
#ifndef STEPFLOW_RUNTIME_KERNELS_LSTM_CELL_H_
#define STEPFLOW_RUNTIME_KERNELS_LSTM_CELL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/rnn_cell_util.h"

namespace stepflow {

struct LstmCellParams {
  float forget_bias = 1.0f;
  float cell_clip = 3.0f;  // no clipping when <= 0
  bool use_peephole = false;
  bool ifco = false;  // gate layout: IFCO instead of ICFO
  int64_t batch = 0;
  int64_t input = 0;
  int64_t cell = 0;

  // Column offset of each gate block within a 4 * cell row.
  int64_t i_offset() const { return 0; }
  int64_t ci_offset() const { return (ifco ? 2 : 1) * cell; }
  int64_t f_offset() const { return (ifco ? 1 : 2) * cell; }
  int64_t o_offset() const { return 3 * cell; }
};

// Weights of one cell: w [input + cell, 4 * cell], b [4 * cell] and the
// peepholes [cell] (null without use_peephole).
struct LstmWeights {
  const float* w = nullptr;
  const float* b = nullptr;
  const float* wci = nullptr;
  const float* wcf = nullptr;
  const float* wco = nullptr;
};

// The seven [batch, cell] activations of a step, in output order.
struct LstmActivations {
  float* i = nullptr;
  float* cs = nullptr;
  float* f = nullptr;
  float* o = nullptr;
  float* ci = nullptr;
  float* co = nullptr;
  float* h = nullptr;
};

// Float buffers for the seven activations, each of `size` elements.
struct ActivationData {
  explicit ActivationData(int64_t size) : data(7, std::vector<float>(size)) {}
  // The activations starting `offset` elements in.
  LstmActivations view(int64_t offset = 0) {
    return {data[0].data() + offset, data[1].data() + offset,
            data[2].data() + offset, data[3].data() + offset,
            data[4].data() + offset, data[5].data() + offset,
            data[6].data() + offset};
  }
  std::vector<std::vector<float>> data;
};

// Forward step: from x [batch, input], cs_prev and h_prev [batch, cell].
void LstmCellForward(const LstmCellParams& p, const LstmWeights& wt,
                     const float* x, const float* cs_prev, const float* h_prev,
                     const LstmActivations& out);

// Backward step: from the step's activations (read-only) and the gradients
// cs_grad, h_grad arriving at cs and h, writes cs_prev_grad [batch, cell]
// and the gate gradients dgates [batch, 4 * cell] (in p's layout), and
// adds the peephole gradients into dwci, dwcf, dwco [cell] (only with
// use_peephole).
void LstmCellBackward(const LstmCellParams& p, const LstmWeights& wt,
                      const float* cs_prev, const LstmActivations& act,
                      const float* cs_grad, const float* h_grad,
                      float* cs_prev_grad, float* dgates, float* dwci,
                      float* dwcf, float* dwco);

// Checks the inputs x, cs_prev, h_prev, w, wci, wcf, wco, b at
// first..first+7 (x of rank x_rank: [batch, input], or [time, batch,
// input]) and sets p's batch, input and cell sizes. The single-step cell
// also rejects an empty cs_prev (`reject_empty`).
absl::Status CheckLstmInputs(OpKernelContext* ctx, int first, int x_rank,
                             bool reject_empty, LstmCellParams* p);

// Float views of the weights at first+3..first+7 (w, wci, wcf, wco, b);
// `view` points into them (peepholes only with p.use_peephole).
struct LstmWeightData {
  LstmWeightData(OpKernelContext* ctx, int first, const LstmCellParams& p);
  FloatInput w, b, wci, wcf, wco;
  LstmWeights view;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_LSTM_CELL_H_
