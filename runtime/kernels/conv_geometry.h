// Convolution geometry shared by the Conv2D, Conv3D and depthwise kernels:
// their attributes (strides, dilations, padding, data format), the output
// size each padding mode gives, and ConvGeometry, the sizes of one
// convolution in channels-last form (N, D, H, W, C; a 2-D convolution has
// D = 1 and a filter depth of 1).
//
// Output sizes follow TensorFlow's rule: with the effective filter size
// e = (f - 1) * dilation + 1, VALID gives (in - e + stride) / stride,
// SAME gives ceil(in / stride) with the total padding
// max((out - 1) * stride + e - in, 0) split as total / 2 before and the rest
// after, EXPLICIT gives (in + before + after - e + stride) / stride. The
// divisions truncate toward zero, so a window just larger than the input
// gives 0 outputs; a negative size is InvalidArgument.
//
// Errors: every function returns InvalidArgument naming the kernel's node
// for sizes or attributes TensorFlow rejects. Thread-safety: plain values.
#ifndef STEPFLOW_RUNTIME_KERNELS_CONV_GEOMETRY_H_
#define STEPFLOW_RUNTIME_KERNELS_CONV_GEOMETRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

enum class ConvPadding { kSame, kValid, kExplicit };

// A convolution kernel's attributes as its NodeDef spells them (indexed in
// the data format's order).
struct ConvAttrs {
  int num_spatial = 2;  // 2 (Conv2D, depthwise) or 3 (Conv3D).
  std::vector<int32_t> strides;
  std::vector<int32_t> dilations;
  ConvPadding padding = ConvPadding::kValid;
  std::vector<int64_t> explicit_paddings;  // 2 per dimension, or empty.
  bool channels_last = true;               // NHWC / NDHWC.

  int rank() const { return num_spatial + 2; }
  // Index of the channel dimension and of spatial dimension i (0-based) in
  // the data format.
  int channel_dim() const { return channels_last ? num_spatial + 1 : 1; }
  int spatial_dim(int i) const { return channels_last ? 1 + i : 2 + i; }
};

// Reads strides, padding, data_format and (when the op has them)
// dilations and explicit_paddings. Errors: unknown padding or format
// (InvalidArgument) and missing attrs.
absl::Status ReadConvAttrs(OpKernelConstruction* ctx, const OpKernel& kernel,
                           int num_spatial, ConvAttrs* attrs);

// TensorFlow's checks on explicit_paddings: 2 * rank values, none negative,
// zero on the batch and channel dimensions, and empty unless the padding is
// EXPLICIT. InvalidArgument naming the node.
absl::Status CheckExplicitPaddings(const OpKernel& kernel,
                                   const ConvAttrs& attrs);

// What a kernel accepts beyond the common attr checks, and the codes
// TensorFlow's CPU kernel gives when it refuses.
struct ConvAttrPolicy {
  // Channels-first (NCHW / NCDHW) data.
  absl::StatusCode channels_first_code = absl::StatusCode::kInvalidArgument;
  // A stride other than 1 on the batch or channel dimension.
  absl::StatusCode batch_stride_code = absl::StatusCode::kInvalidArgument;
  // Dilation rates above 1 on spatial dimensions: accepted, refused with
  // dilation_code, or ignored (the depthwise gradients).
  enum class Dilations {
    kAccept,
    kRefuse,
    kIgnore
  } dilations = Dilations::kAccept;
  absl::StatusCode dilation_code = absl::StatusCode::kInvalidArgument;
  // Row and column strides must be equal (the depthwise kernels).
  bool equal_strides = false;
};

// Checks attrs the way TensorFlow's CPU kernels do at construction:
// stride and dilation counts, batch/channel strides and dilations, positive
// values, explicit paddings, data format and the policy above.
absl::Status ValidateConvAttrs(const OpKernel& kernel, const ConvAttrs& attrs,
                               const ConvAttrPolicy& policy);

// The output size along one spatial dimension and the padding before it.
absl::Status ConvOutputSize(const OpKernel& kernel, int64_t in, int64_t filter,
                            int64_t dilation, int64_t stride,
                            ConvPadding padding, int64_t explicit_before,
                            int64_t explicit_after, int64_t* out,
                            int64_t* pad_before);

// One convolution in channels-last form. The filter is laid out
// [fd, fh, fw, in_depth / groups, out_depth]; input channel group g feeds
// output channels [g * out_depth / groups, (g + 1) * out_depth / groups).
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in[3] = {1, 1, 1};  // D, H, W
  int64_t filter[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};  // padding before, per spatial dimension
  int64_t in_depth = 0;
  int64_t out_depth = 0;
  int64_t groups = 1;

  int64_t filter_in_depth() const { return in_depth / groups; }
  int64_t out_depth_per_group() const { return out_depth / groups; }
  int64_t in_positions() const { return in[0] * in[1] * in[2]; }
  int64_t out_positions() const { return out[0] * out[1] * out[2]; }
  int64_t filter_positions() const { return filter[0] * filter[1] * filter[2]; }
  // Length of one im2col row: one window over one channel group.
  int64_t patch_size() const { return filter_positions() * filter_in_depth(); }
  // True when every output position reads exactly its own input position
  // (1x1 filter, stride 1, no padding): the input is its own im2col matrix.
  bool is_pointwise() const;
};

// Fills `geo` (all but batch, in_depth, out_depth and groups, which the
// caller sets) from the spatial sizes of the input and filter (in data
// format order: attrs.num_spatial of each) and the attrs.
absl::Status ComputeConvGeometry(const OpKernel& kernel, const ConvAttrs& attrs,
                                 const int64_t* in_spatial,
                                 const int64_t* filter_spatial,
                                 ConvGeometry* geo);

// The output shape of `geo` in channels-last order (rank num_spatial + 2).
TensorShape ConvOutputShape(const ConvGeometry& geo, int num_spatial);
TensorShape ConvInputShape(const ConvGeometry& geo, int num_spatial);

// Checks that `out_backprop` has the shape the forward convolution gives
// (rank, batch, spatial sizes and depth); InvalidArgument naming the node.
absl::Status CheckOutBackpropShape(const OpKernel& kernel,
                                   const ConvGeometry& geo, int num_spatial,
                                   const TensorShape& out_backprop);

// Reads a 1-D int32/int64 size tensor (input_sizes, filter_sizes) of
// `rank` elements into `dims`. InvalidArgument naming the node otherwise.
absl::Status ReadSizesTensor(const OpKernel& kernel, const Tensor& t, int rank,
                             const char* what, std::vector<int64_t>* dims);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CONV_GEOMETRY_H_
