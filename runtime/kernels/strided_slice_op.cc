// StridedSlice: NumPy-style basic indexing (see strided_slice_helper.h).
// The whole-input case shares the input buffer; otherwise elements are
// gathered row by row (contiguous rows copy as blocks).
#include <algorithm>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/strided_slice_helper.h"

namespace stepflow {
namespace {

template <typename U>
void Gather(const StridedSliceSpec& spec, const TensorShape& in_shape,
            const U* in, U* out) {
  const int rank = static_cast<int>(spec.processing_dims.size());
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  std::vector<int64_t> in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) {
    in_strides[i] = in_strides[i + 1] * in_shape.dim_size(i + 1);
  }
  // Step in the input per output step, per dim.
  std::vector<int64_t> step(rank);
  int64_t base = 0;
  for (int i = 0; i < rank; ++i) {
    step[i] = spec.stride[i] * in_strides[i];
    base += spec.begin[i] * in_strides[i];
  }
  const int64_t n = spec.processing_dims[rank - 1];
  const int64_t inner = step[rank - 1];
  int64_t total = 1;
  for (int64_t d : spec.processing_dims) total *= d;
  std::vector<int64_t> idx(rank, 0);
  int64_t off = base;
  for (int64_t o = 0; o < total; o += n) {
    if (inner == 1) {
      std::copy(in + off, in + off + n, out + o);
    } else {
      for (int64_t j = 0; j < n; ++j) out[o + j] = in[off + j * inner];
    }
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < spec.processing_dims[d]) {
        off += step[d];
        break;
      }
      off -= step[d] * (spec.processing_dims[d] - 1);
      idx[d] = 0;
    }
  }
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, ResolveStridedSliceInputs(
                            *this, input.shape(), ctx->input(1), ctx->input(2),
                            ctx->input(3), masks_, &spec));
    if (spec.is_identity) {
      Tensor out;
      OP_REQUIRES(
          ctx, out.CopyFrom(input, spec.final_shape),
          NodeInternal(ctx, "identity slice changed the element count"));
      ctx->set_output(0, out);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, spec.final_shape, &out));
    if (spec.final_shape.num_elements() == 0) return;
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      Gather<U>(spec, input.shape(), input.base<U>(), out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "StridedSlice does not support dtype ",
                                    DataTypeString(input.dtype())));
  }

 private:
  StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(
    Name("StridedSlice").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    StridedSliceOp);

}  // namespace
}  // namespace stepflow
