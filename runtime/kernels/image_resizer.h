// Geometry shared by the image resize kernels (ResizeBilinear,
// ResizeNearestNeighbor, ResizeArea and their gradients): validating the
// image and the requested size the way TensorFlow's CPU kernels do, and
// mapping output coordinates to input coordinates.
//
// Images are NHWC. Errors: InvalidArgument naming the node (wrong ranks,
// a size that is not two positive int32 values, empty images,
// half_pixel_centers together with align_corners).
#ifndef STEPFLOW_RUNTIME_KERNELS_IMAGE_RESIZER_H_
#define STEPFLOW_RUNTIME_KERNELS_IMAGE_RESIZER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {

// in / out, or (in - 1) / (out - 1) with align_corners when both exceed 1.
inline float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && in > 1 && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// The input coordinate of output index x for the bilinear resizes.
inline float BilinearSource(int64_t x, float scale, bool half_pixel_centers) {
  return half_pixel_centers ? (static_cast<float>(x) + 0.5f) * scale - 0.5f
                            : static_cast<float>(x) * scale;
}

struct ResizeGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  int64_t channels = 0;
  float height_scale = 0;
  float width_scale = 0;
};

// A forward resize: `images` [batch, h, w, c] and `size` (int32, 2 values).
absl::Status ResizeForward(const OpKernel& kernel, const Tensor& images,
                           const Tensor& size, bool align_corners,
                           bool half_pixel_centers, ResizeGeometry* g);

// The base of the resize kernels: reads align_corners and (when the op
// has it) half_pixel_centers at construction.
class ResizeOpKernel : public ShardedOpKernel {
 protected:
  explicit ResizeOpKernel(OpKernelConstruction* ctx);

  // Validates a forward resize of images (input 0) to size (input 1) and
  // allocates output 0 [batch, out_height, out_width, channels] of `dtype`.
  absl::Status AllocateResized(OpKernelContext* ctx, DataType dtype,
                               ResizeGeometry* g, Tensor** output) const;

  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_IMAGE_RESIZER_H_
