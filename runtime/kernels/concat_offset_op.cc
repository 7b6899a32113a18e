// ConcatOffset(concat_dim, shape_0..shape_{N-1}): where each input of a
// concatenation along concat_dim starts in the output, as a vector per
// input (zero except at concat_dim, which holds the running sum of the
// earlier inputs' sizes). ConcatV2's gradient slices with these. Errors
// (InvalidArgument naming the node): concat_dim not a scalar or out of
// range, shapes not vectors of equal length, or differing outside
// concat_dim.
#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dim_t = ctx->input(0);
    OP_REQUIRES(ctx, dim_t.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "Concat dim tensor should be a scalar "
                                    "integer, but got shape ",
                                    dim_t.shape().DebugString()));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                NodeInvalidArgument(ctx,
                                    "input 0 should be a vector, but "
                                    "got shape ",
                                    first.shape().DebugString()));
    const int64_t rank = first.NumElements();
    const int64_t cdim = dim_t.base<int32_t>()[0];
    const int64_t axis = cdim < 0 ? cdim + rank : cdim;
    OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                NodeInvalidArgument(ctx, "Concat dim is out of range: ", cdim,
                                    " vs. ", rank));
    std::vector<int64_t> first_v;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, first, &first_v));
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(1 + i);
      OP_REQUIRES(
          ctx, t.dims() == 1 && t.NumElements() == rank,
          NodeInvalidArgument(ctx, "input ", i, " should contain ", rank,
                              " elements, but got ", t.NumElements()));
      std::vector<int64_t> v;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, t, &v));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, t.shape(), &out));
      for (int64_t d = 0; d < rank; ++d) {
        int64_t value = 0;
        if (d == axis) {
          value = offset;
          offset += v[d];
        } else {
          OP_REQUIRES(
              ctx, v[d] == first_v[d],
              NodeInvalidArgument(ctx, "All dimensions except ", axis,
                                  " must match. Input ", i, " has shape [",
                                  absl::StrJoin(v, " "),
                                  "] and doesn't match input 0 with shape [",
                                  absl::StrJoin(first_v, " "), "]."));
        }
        if (t.dtype() == DT_INT32) {
          out->base<int32_t>()[d] = static_cast<int32_t>(value);
        } else {
          out->base<int64_t>()[d] = value;
        }
      }
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("ConcatOffset")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("shape_type", {DT_INT32, DT_INT64}),
                        ConcatOffsetOp);

}  // namespace
}  // namespace stepflow
