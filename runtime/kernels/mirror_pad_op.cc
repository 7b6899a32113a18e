// MirrorPad(input, paddings; mode) pads each dim with a mirror image of the
// input: REFLECT leaves out the edge element (paddings at most dim - 1),
// SYMMETRIC repeats it (paddings at most dim). MirrorPadGrad(grad,
// paddings; mode) folds a gradient of the padded shape back onto the
// input's shape, summing every element into the one it was copied from.
// Errors (InvalidArgument naming the node): paddings not [rank, 2],
// negative or too large paddings.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/dim_map_gather.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/pad_util.h"

namespace stepflow {
namespace {

// For each padded position along a dim of size `n`, the input position it
// copies.
std::vector<int64_t> MirrorMap(int64_t n, int64_t before, int64_t after,
                               bool reflect) {
  std::vector<int64_t> map(n + before + after);
  for (int64_t o = 0; o < static_cast<int64_t>(map.size()); ++o) {
    int64_t i = o - before;
    if (i < 0) {
      i = reflect ? -i : -i - 1;
    } else if (i >= n) {
      i = reflect ? 2 * n - 2 - i : 2 * n - 1 - i;
    }
    map[o] = i;
  }
  return map;
}

class MirrorPadOpBase : public OpKernel {
 public:
  explicit MirrorPadOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    OP_REQUIRES(ctx, mode == "REFLECT" || mode == "SYMMETRIC",
                NodeInvalidArgument(*this,
                                    "mode must be either REFLECT or "
                                    "SYMMETRIC."));
    reflect_ = mode == "REFLECT";
  }

 protected:
  // Checks the paddings against the unpadded dims (`small`) and builds the
  // maps from padded positions to unpadded ones.
  absl::Status Maps(const std::vector<int64_t>& pads,
                    const std::vector<int64_t>& small, DimMaps* maps) const {
    const int64_t offset = reflect_ ? 1 : 0;
    maps->resize(small.size());
    for (size_t d = 0; d < small.size(); ++d) {
      const int64_t before = pads[2 * d], after = pads[2 * d + 1];
      if (before < 0 || after < 0) {
        return NodeInvalidArgument(
            *this, "Paddings must be non-negative: ", before, ", ", after);
      }
      if (before > small[d] - offset || after > small[d] - offset) {
        return NodeInvalidArgument(*this, "paddings must be less than",
                                   reflect_ ? "" : " or equal to",
                                   " the dimension size: ", before, ", ", after,
                                   " greater than ", small[d] - offset);
      }
      (*maps)[d] = MirrorMap(small[d], before, after, reflect_);
    }
    return absl::OkStatus();
  }

  bool reflect_ = false;
};

class MirrorPadOp : public MirrorPadOpBase {
 public:
  using MirrorPadOpBase::MirrorPadOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(*this, input, ctx->input(1), &pads));
    std::vector<int64_t> small(input.shape().dim_sizes().begin(),
                               input.shape().dim_sizes().end());
    DimMaps maps;
    OP_REQUIRES_OK(ctx, Maps(pads, small, &maps));
    std::vector<int64_t> dims;
    for (const auto& m : maps) dims.push_back(static_cast<int64_t>(m.size()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, input.dtype(), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      GatherByDimMaps(input.base<U>(), input.shape(), maps, out->base<U>());
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "MirrorPad does not support dtype ",
                                    DataTypeString(input.dtype())));
  }
};

template <typename T>
class MirrorPadGradOp : public MirrorPadOpBase {
 public:
  using MirrorPadOpBase::MirrorPadOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(*this, grad, ctx->input(1), &pads));
    std::vector<int64_t> small(grad.dims());
    for (int d = 0; d < grad.dims(); ++d) {
      small[d] = grad.dim_size(d) - pads[2 * d] - pads[2 * d + 1];
    }
    DimMaps maps;
    OP_REQUIRES_OK(ctx, Maps(pads, small, &maps));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, small, grad.dtype(), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* o = out->base<T>();
    std::fill(o, o + shape.num_elements(), T(0));
    const T* g = grad.base<T>();
    ForEachMapped(shape, maps, [&](int64_t src, int64_t dst) {
      o[dst] = static_cast<T>(o[dst] + g[src]);
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MirrorPad").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    MirrorPadOp);
#define REGISTER(T)                                                    \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("MirrorPadGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MirrorPadGradOp<T>);
SF_CALL_NUMBER_TYPES(REGISTER)
#undef REGISTER

}  // namespace
}  // namespace stepflow
