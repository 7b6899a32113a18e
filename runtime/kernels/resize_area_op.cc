// ResizeArea (NHWC): each output pixel is the area-weighted average of the
// input cells its footprint [y * scale, (y + 1) * scale) x [...] covers,
// as TensorFlow's CPU kernel computes it: per row of the footprint, the
// first and last cells weighted by their covered fraction and the cells
// between by 1, summed in float; the rows weighted likewise; the total
// times 1 / (height_scale * width_scale). Cells past the image's edge
// (align_corners footprints) read the nearest edge cell.
//
// Work is split over output rows. Errors: see image_resizer.h.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/image_resizer.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {
namespace {

int64_t Clamp(int64_t v, int64_t size) {
  return std::min(size - 1, std::max<int64_t>(0, v));
}

// The weight of cell i within the footprint [lo, hi) of a cell `scale` wide.
float CellWeight(int64_t i, float lo, float hi, float scale) {
  const float next = static_cast<float>(i + 1);
  if (static_cast<float>(i) < lo) return next > hi ? scale : next - lo;
  return next > hi ? hi - static_cast<float>(i) : 1.0f;
}

// One output column's footprint: cells [start, end) and the end weights.
struct AreaSpan {
  int64_t start = 0;
  int64_t end = 0;
  float start_weight = 0;
  float last_weight = 0;
};

template <typename T>
class ResizeAreaOp : public ResizeOpKernel {
 public:
  explicit ResizeAreaOp(OpKernelConstruction* ctx) : ResizeOpKernel(ctx) {}

 protected:
  void Prepare(OpKernelContext* ctx, ShardedWork* work) override {
    const Tensor& images = ctx->input(0);
    ResizeGeometry g;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, AllocateResized(ctx, DT_FLOAT, &g, &output));
    if (output->NumElements() == 0) return;
    auto xs = std::make_shared<std::vector<AreaSpan>>(g.out_width);
    for (int64_t x = 0; x < g.out_width; ++x) {
      const float lo = static_cast<float>(x) * g.width_scale;
      const float hi = static_cast<float>(x + 1) * g.width_scale;
      AreaSpan& s = (*xs)[x];
      s.start = static_cast<int64_t>(std::floor(lo));
      s.end = static_cast<int64_t>(std::ceil(hi));
      s.start_weight = CellWeight(s.start, lo, hi, g.width_scale);
      s.last_weight = CellWeight(s.end - 1, lo, hi, g.width_scale);
    }
    const T* in = images.base<T>();
    float* out = output->base<float>();
    work->units = g.batch * g.out_height;
    work->cost_per_unit =
        g.out_width * g.channels *
        static_cast<int64_t>(std::ceil(g.height_scale * g.width_scale) + 2);
    work->fn = [g, xs, in, out](int64_t begin, int64_t end) {
      const int64_t ch = g.channels;
      const float total = static_cast<float>(
          1.0 / (static_cast<double>(g.height_scale) * g.width_scale));
      std::vector<const T*> rows;
      std::vector<float> row_weights;
      for (int64_t u = begin; u < end; ++u) {
        const int64_t b = u / g.out_height;
        const int64_t y = u % g.out_height;
        const float lo = static_cast<float>(y) * g.height_scale;
        const float hi = static_cast<float>(y + 1) * g.height_scale;
        const int64_t y0 = static_cast<int64_t>(std::floor(lo));
        const int64_t y1 = static_cast<int64_t>(std::ceil(hi));
        rows.clear();
        row_weights.clear();
        for (int64_t i = y0; i < y1; ++i) {
          row_weights.push_back(CellWeight(i, lo, hi, g.height_scale));
          rows.push_back(
              in +
              ((b * g.in_height + Clamp(i, g.in_height)) * g.in_width) * ch);
        }
        float* o = out + u * g.out_width * ch;
        for (int64_t x = 0; x < g.out_width; ++x) {
          const AreaSpan& s = (*xs)[x];
          for (int64_t c = 0; c < ch; ++c) {
            float sum = 0;
            for (size_t r = 0; r < rows.size(); ++r) {
              const T* row = rows[r];
              float sum_x =
                  static_cast<float>(row[Clamp(s.start, g.in_width) * ch + c]) *
                  s.start_weight;
              if (s.start + 1 != s.end) {
                for (int64_t i = s.start + 1; i < s.end - 1; ++i) {
                  sum_x +=
                      static_cast<float>(row[Clamp(i, g.in_width) * ch + c]);
                }
                sum_x += static_cast<float>(
                             row[Clamp(s.end - 1, g.in_width) * ch + c]) *
                         s.last_weight;
              }
              sum += sum_x * row_weights[r];
            }
            o[x * ch + c] = sum * total;
          }
        }
      }
    };
  }
};

#define SF_REGISTER_RESIZE_AREA(T)                                  \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("ResizeArea").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeAreaOp<T>);
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_RESIZE_AREA)
#undef SF_REGISTER_RESIZE_AREA

}  // namespace
}  // namespace stepflow
