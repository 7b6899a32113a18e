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
#include "runtime/kernels/dim_map_gather.h"
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
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U fill = v2 ? ctx->input(2).base<U>()[0] : U{};
      U* o = out->base<U>();
      std::fill(o, o + shape.num_elements(), fill);
      if (input.NumElements() == 0) return;
      // Input element (i_0, ...) lands at (i_0 + before_0, ...).
      DimMaps maps(rank);
      for (int d = 0; d < rank; ++d) {
        maps[d].resize(input.dim_size(d));
        for (int64_t i = 0; i < input.dim_size(d); ++i) {
          maps[d][i] = i + pads[2 * d];
        }
      }
      const U* in = input.base<U>();
      ScatterByDimMaps(in, shape, maps, o);
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
