// MatrixBandPart(input, num_lower, num_upper): each innermost matrix with
// the elements outside the band zeroed: (i, j) is kept when
// (num_lower < 0 || i - j <= num_lower) && (num_upper < 0 ||
// j - i <= num_upper). Errors (InvalidArgument naming the node): input of
// rank below 2, non-scalar bounds, bounds above the matrix's rows/columns.
#include <cstdint>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() >= 2,
                NodeInvalidArgument(ctx,
                                    "input must be at least 2-dim, received "
                                    "shape: ",
                                    input.shape().DebugString()));
    const int64_t rows = input.dim_size(input.dims() - 2);
    const int64_t cols = input.dim_size(input.dims() - 1);
    int64_t bounds[2];
    const char* names[2] = {"num_lower", "num_upper"};
    const int64_t limits[2] = {rows, cols};
    for (int k = 0; k < 2; ++k) {
      const Tensor& t = ctx->input(1 + k);
      OP_REQUIRES(
          ctx, t.dims() == 0,
          NodeInvalidArgument(ctx, names[k], " must be scalar, got shape ",
                              t.shape().DebugString()));
      std::vector<int64_t> v;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, t, &v));
      bounds[k] = v[0];
      OP_REQUIRES(ctx, bounds[k] <= limits[k],
                  NodeInvalidArgument(ctx, names[k],
                                      " must be negative or less or equal to "
                                      "number of ",
                                      k == 0 ? "rows" : "columns", " (",
                                      limits[k], ") got: ", bounds[k]));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t total = input.NumElements();
    if (total == 0) return;
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* in = input.base<U>();
      U* o = out->base<U>();
      for (int64_t e = 0; e < total; ++e) {
        const int64_t j = e % cols, i = (e / cols) % rows;
        const bool keep = (bounds[0] < 0 || i - j <= bounds[0]) &&
                          (bounds[1] < 0 || j - i <= bounds[1]);
        o[e] = keep ? in[e] : U{};
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "MatrixBandPart does not support ",
                                    DataTypeString(input.dtype())));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MatrixBandPart").Device(DEVICE_CPU).TypeConstraint("T", PodTypes()),
    MatrixBandPartOp);

}  // namespace
}  // namespace stepflow
