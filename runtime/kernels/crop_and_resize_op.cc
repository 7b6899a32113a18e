// CropAndResize: for each box (y1, x1, y2, x2, normalised) of image
// box_ind[b], a crop_height x crop_width float crop sampled bilinearly (or
// at the nearest pixel) between the box's corners, as TensorFlow's CPU
// kernel computes it: sample coordinates in float, and samples outside the
// image set to extrapolation_value.
//
// Work is split over boxes. Errors: InvalidArgument naming the node for
// wrong ranks and sizes and non-positive image or crop sizes; OutOfRange
// for box indices outside [0, batch).
#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

template <typename T>
class CropAndResizeOp : public ShardedOpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : ShardedOpKernel(ctx) {
    std::string method;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    bilinear_ = method == "bilinear";
    OP_REQUIRES_OK(ctx, ctx->GetAttr("extrapolation_value", &extrapolation_));
  }

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& crop_size = ctx->input(3);
    OP_REQUIRES(ctx, image.dims() == 4,
                NodeInvalidArgument(ctx, "input image must be 4-D",
                                    image.shape().DebugString()));
    const int64_t batch = image.dim_size(0);
    const int64_t ih = image.dim_size(1);
    const int64_t iw = image.dim_size(2);
    const int64_t depth = image.dim_size(3);
    OP_REQUIRES(ctx, ih > 0 && iw > 0,
                NodeInvalidArgument(ctx, "image dimensions must be positive"));
    OP_REQUIRES(ctx, boxes.dims() == 2 && boxes.dim_size(1) == 4,
                NodeInvalidArgument(ctx, "boxes must be 2-D of shape [n, 4]",
                                    boxes.shape().DebugString()));
    const int64_t num_boxes = boxes.dim_size(0);
    OP_REQUIRES(ctx, box_ind.dims() == 1,
                NodeInvalidArgument(ctx, "box_index must be 1-D",
                                    box_ind.shape().DebugString()));
    OP_REQUIRES(ctx, box_ind.dim_size(0) == num_boxes,
                NodeInvalidArgument(ctx, "box_index has incompatible shape"));
    OP_REQUIRES(ctx, crop_size.dims() == 1 && crop_size.NumElements() == 2,
                NodeInvalidArgument(ctx,
                                    "crop_size must be a length-2 vector, "
                                    "got ",
                                    crop_size.shape().DebugString()));
    const int64_t ch = crop_size.base<int32_t>()[0];
    const int64_t cw = crop_size.base<int32_t>()[1];
    OP_REQUIRES(ctx, ch > 0 && cw > 0,
                NodeInvalidArgument(ctx, "crop dimensions must be positive"));
    const int32_t* ind = box_ind.base<int32_t>();
    for (int64_t b = 0; b < num_boxes; ++b) {
      OP_REQUIRES(ctx, ind[b] >= 0 && ind[b] < batch,
                  NodeError(absl::StatusCode::kOutOfRange, *this,
                            "box_index has values outside [0, ", batch, ")"));
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, {num_boxes, ch, cw, depth},
                                        DT_FLOAT, &shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    if (output->NumElements() == 0) return;
    const T* img = image.base<T>();
    const float* bx = boxes.base<float>();
    float* out = output->base<float>();
    const bool bilinear = bilinear_;
    const float extrapolation = extrapolation_;
    work->units = num_boxes;
    work->cost_per_unit = ch * cw * depth * 8;
    work->fn = [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const float y1 = bx[b * 4], x1 = bx[b * 4 + 1];
        const float y2 = bx[b * 4 + 2], x2 = bx[b * 4 + 3];
        const T* base = img + ind[b] * ih * iw * depth;
        const float hs = ch > 1 ? (y2 - y1) * static_cast<float>(ih - 1) /
                                      static_cast<float>(ch - 1)
                                : 0.0f;
        const float ws = cw > 1 ? (x2 - x1) * static_cast<float>(iw - 1) /
                                      static_cast<float>(cw - 1)
                                : 0.0f;
        for (int64_t y = 0; y < ch; ++y) {
          float* row = out + ((b * ch + y) * cw) * depth;
          const float in_y =
              ch > 1
                  ? y1 * static_cast<float>(ih - 1) + static_cast<float>(y) * hs
                  : 0.5f * (y1 + y2) * static_cast<float>(ih - 1);
          if (!(in_y >= 0 && in_y <= static_cast<float>(ih - 1))) {  // NaN too
            std::fill(row, row + cw * depth, extrapolation);
            continue;
          }
          for (int64_t x = 0; x < cw; ++x) {
            float* o = row + x * depth;
            const float in_x =
                cw > 1 ? x1 * static_cast<float>(iw - 1) +
                             static_cast<float>(x) * ws
                       : 0.5f * (x1 + x2) * static_cast<float>(iw - 1);
            if (!(in_x >= 0 && in_x <= static_cast<float>(iw - 1))) {
              std::fill(o, o + depth, extrapolation);
              continue;
            }
            if (bilinear) {
              const int64_t ty = static_cast<int64_t>(std::floor(in_y));
              const int64_t by = static_cast<int64_t>(std::ceil(in_y));
              const float yl = in_y - static_cast<float>(ty);
              const int64_t lx = static_cast<int64_t>(std::floor(in_x));
              const int64_t rx = static_cast<int64_t>(std::ceil(in_x));
              const float xl = in_x - static_cast<float>(lx);
              for (int64_t d = 0; d < depth; ++d) {
                const float tl =
                    static_cast<float>(base[(ty * iw + lx) * depth + d]);
                const float tr =
                    static_cast<float>(base[(ty * iw + rx) * depth + d]);
                const float bl =
                    static_cast<float>(base[(by * iw + lx) * depth + d]);
                const float br =
                    static_cast<float>(base[(by * iw + rx) * depth + d]);
                const float top = tl + (tr - tl) * xl;
                const float bottom = bl + (br - bl) * xl;
                o[d] = top + (bottom - top) * yl;
              }
            } else {
              const int64_t ny = static_cast<int64_t>(std::round(in_y));
              const int64_t nx = static_cast<int64_t>(std::round(in_x));
              for (int64_t d = 0; d < depth; ++d) {
                o[d] = static_cast<float>(base[(ny * iw + nx) * depth + d]);
              }
            }
          }
        }
      }
    };
  }

 private:
  bool bilinear_ = true;
  float extrapolation_ = 0;
};

#define SF_REGISTER_CROP_AND_RESIZE(T)                                 \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("CropAndResize").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CropAndResizeOp<T>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_CROP_AND_RESIZE)
#undef SF_REGISTER_CROP_AND_RESIZE

}  // namespace
}  // namespace stepflow
