// Pad(input, paddings) and PadV2(input, paddings, constant_values): the
// input surrounded by paddings[d] = (before, after) elements per dim, filled
// with zero ("" for strings) or the scalar constant_values. All-zero
// paddings forward the input. Errors (InvalidArgument naming the node):
// paddings not an [rank, 2] matrix, a negative padding, a non-scalar
// constant_values.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/pad_util.h"

namespace stepflow {
namespace {

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(*this, input, ctx->input(1), &pads));
    const bool v2 = ctx->num_inputs() == 3;
    if (v2) {
      const Tensor& c = ctx->input(2);
      OP_REQUIRES(ctx, c.dims() == 0,
                  NodeInvalidArgument(ctx,
                                      "constant_values must be a scalar. "
                                      "Shape of constant_values is ",
                                      c.shape().DebugString()));
    }
    const int rank = input.dims();
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d) {
      OP_REQUIRES(ctx, pads[2 * d] >= 0 && pads[2 * d + 1] >= 0,
                  NodeInvalidArgument(ctx, "Paddings must be non-negative: ",
                                      pads[2 * d], " ", pads[2 * d + 1]));
      // Larger paddings could only describe an output over the size limit
      // (and their sum could overflow).
      OP_REQUIRES(
          ctx,
          pads[2 * d] <= kMaxTensorBytes && pads[2 * d + 1] <= kMaxTensorBytes,
          NodeInvalidArgument(ctx, "Paddings too large: ", pads[2 * d], " ",
                              pads[2 * d + 1]));
      dims[d] = input.dim_size(d) + pads[2 * d] + pads[2 * d + 1];
    }
    if (std::all_of(pads.begin(), pads.end(),
                    [](int64_t p) { return p == 0; })) {
      ctx->set_output(0, input);
      return;
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, input.dtype(), &shape));
    Tensor* out = nullptr;
    // Every element is written below (fill or an input element).
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, shape, &out, TensorFill::kUninitialized));
    if (shape.num_elements() == 0) return;
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U fill = v2 ? ctx->input(2).base<U>()[0] : U{};
      U* o = out->base<U>();
      if (input.NumElements() == 0 || rank == 0) {
        std::fill(o, o + shape.num_elements(), fill);
        return;
      }
      // Output rows (last dim) whose leading coordinates fall inside the
      // input get fill / input row / fill; the others are all fill. Each
      // output element is written once.
      const U* in = input.base<U>();
      const int64_t row = dims[rank - 1], in_row = input.dim_size(rank - 1);
      const int64_t before = pads[2 * (rank - 1)];
      const int64_t rows = shape.num_elements() / row;
      std::vector<int64_t> idx(rank - 1, 0);
      int64_t outside = 0;  // Leading dims whose coordinate is padding.
      for (int d = 0; d + 1 < rank; ++d) outside += pads[2 * d] > 0;
      int64_t in_off = 0;  // Input row of the current output row.
      for (int64_t r = 0; r < rows; ++r, o += row) {
        if (outside > 0) {
          std::fill(o, o + row, fill);
        } else {
          std::fill(o, o + before, fill);
          std::copy(in + in_off, in + in_off + in_row, o + before);
          std::fill(o + before + in_row, o + row, fill);
          in_off += in_row;
        }
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t lo = pads[2 * d], hi = lo + input.dim_size(d);
          const bool was = idx[d] < lo || idx[d] >= hi;
          if (++idx[d] == dims[d]) idx[d] = 0;
          const bool now = idx[d] < lo || idx[d] >= hi;
          outside += static_cast<int64_t>(now) - static_cast<int64_t>(was);
          if (idx[d] != 0) break;
        }
      }
    });
    OP_REQUIRES(
        ctx, ok,
        NodeInvalidArgument(ctx, type_string(), " does not support dtype ",
                            DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Pad").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PadOp);
REGISTER_KERNEL_BUILDER(
    Name("PadV2").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PadOp);

}  // namespace
}  // namespace stepflow
