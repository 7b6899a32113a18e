#include "runtime/kernels/pooling_params.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/status_macros.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

absl::Status Unimplemented(const OpKernel& kernel, absl::string_view msg) {
  return NodeError(absl::StatusCode::kUnimplemented, kernel, msg);
}

// The output size of one windowed dimension, and the padding before it
// (SAME: half the padding needed, rounded down; EXPLICIT: as given).
absl::Status WindowedOutputSize(const OpKernel& kernel, int64_t in,
                                int64_t window, int64_t stride,
                                PoolPadding padding, int64_t explicit_before,
                                int64_t explicit_after, int64_t* out,
                                int64_t* pad_before) {
  if (stride <= 0) {
    return NodeInvalidArgument(kernel, "Stride must be > 0, but got ", stride);
  }
  switch (padding) {
    case PoolPadding::kValid:
      *out = (in - window + stride) / stride;
      *pad_before = 0;
      break;
    case PoolPadding::kExplicit:
      *out = (in + explicit_before + explicit_after - window + stride) / stride;
      *pad_before = explicit_before;
      break;
    case PoolPadding::kSame: {
      *out = (in + stride - 1) / stride;
      const int64_t needed =
          std::max<int64_t>(0, (*out - 1) * stride + window - in);
      *pad_before = needed / 2;
      break;
    }
  }
  if (*out < 0) {
    return NodeInvalidArgument(
        kernel, "Computed output size would be negative: ", *out,
        " [input_size: ", in, ", effective_filter_size: ", window,
        ", stride: ", stride, "]");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPoolSizes(const OpKernel& kernel, int spatial_dims,
                            const std::vector<int64_t>& ksize,
                            const std::vector<int64_t>& strides) {
  const size_t rank = spatial_dims + 2;
  if (ksize.size() != rank) {
    return NodeInvalidArgument(kernel,
                               "Sliding window ksize field must specify ", rank,
                               " dimensions");
  }
  for (int64_t k : ksize) {
    if (k <= 0) {
      return NodeInvalidArgument(kernel,
                                 "Sliding window ksize must be positive.");
    }
  }
  if (strides.size() != rank) {
    return NodeInvalidArgument(kernel,
                               "Sliding window stride field must specify ",
                               rank, " dimensions");
  }
  if (ksize[0] != 1 || strides[0] != 1) {
    return Unimplemented(
        kernel, "Pooling is not yet supported on the batch dimension.");
  }
  if (spatial_dims == 3 && (ksize[4] != 1 || strides[4] != 1)) {
    return Unimplemented(
        kernel, "Pooling is not yet supported on the depth dimension.");
  }
  return absl::OkStatus();
}

absl::Status ReadPoolOptions(OpKernelConstruction* ctx, const OpKernel& kernel,
                             int spatial_dims, bool sizes_from_attrs,
                             PoolOptions* options) {
  options->spatial_dims = spatial_dims;
  if (ctx->HasAttr("data_format")) {
    std::string format;
    SF_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
    const char* want = spatial_dims == 2 ? "NHWC" : "NDHWC";
    options->vect_c =
        format == "NCHW_VECT_C" && kernel.type_string() == "MaxPoolV2";
    if (format != want && !options->vect_c) {
      return NodeInvalidArgument(kernel, "Default ", kernel.type_string(),
                                 " only supports ", want,
                                 " on device type CPU, got ", format);
    }
  }
  if (sizes_from_attrs) {
    SF_RETURN_IF_ERROR(ctx->GetAttr("ksize", &options->ksize));
    SF_RETURN_IF_ERROR(ctx->GetAttr("strides", &options->strides));
    SF_RETURN_IF_ERROR(
        CheckPoolSizes(kernel, spatial_dims, options->ksize, options->strides));
  }
  std::string padding;
  SF_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  if (padding == "SAME") {
    options->padding = PoolPadding::kSame;
  } else if (padding == "VALID") {
    options->padding = PoolPadding::kValid;
  } else {
    options->padding = PoolPadding::kExplicit;
    std::vector<int64_t>& pads = options->explicit_paddings;
    SF_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &pads));
    const size_t want = 2 * (spatial_dims + 2);
    if (pads.size() != want) {
      return NodeInvalidArgument(kernel,
                                 "explicit_paddings attribute must contain ",
                                 want, " values, but got: ", pads.size());
    }
    for (int64_t p : pads) {
      if (p < 0) {
        return NodeInvalidArgument(
            kernel, "All elements of explicit_paddings must be nonnegative");
      }
    }
    if (pads[0] != 0 || pads[1] != 0 || pads[want - 2] != 0 ||
        pads[want - 1] != 0) {
      return NodeInvalidArgument(kernel,
                                 "Nonzero explicit padding in the batch or "
                                 "depth dimensions is not supported");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadPoolSizeInputs(OpKernelContext* ctx, int ksize_index,
                                PoolOptions* options) {
  const OpKernel& kernel = ctx->op_kernel();
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = ctx->input(ksize_index + i);
    std::vector<int64_t>& v = i == 0 ? options->ksize : options->strides;
    v.assign(t.base<int32_t>(), t.base<int32_t>() + t.NumElements());
  }
  return CheckPoolSizes(kernel, options->spatial_dims, options->ksize,
                        options->strides);
}

TensorShape PoolGeometry::OutputShape(int spatial_dims) const {
  TensorShape shape;
  shape.AddDim(batch);
  for (int d = 3 - spatial_dims; d < 3; ++d) shape.AddDim(out[d]);
  shape.AddDim(out_depth);
  return shape;
}

absl::Status ComputePoolGeometry(const OpKernel& kernel,
                                 const PoolOptions& options,
                                 const TensorShape& input_shape,
                                 bool allow_depth_pooling, PoolGeometry* g) {
  const int spatial = options.spatial_dims;
  if (input_shape.dims() != spatial + 2) {
    return NodeInvalidArgument(kernel, "tensor_in must be ", spatial + 2,
                               "-dimensional");
  }
  const int first = 3 - spatial;  // the first used slot of in/out/...
  g->batch = input_shape.dim_size(0);
  g->depth = input_shape.dim_size(spatial + 1);
  for (int d = 0; d < 3; ++d) {
    g->in[d] = g->out[d] = g->window[d] = g->stride[d] = 1;
    g->pad[d] = 0;
  }
  for (int d = 0; d < spatial; ++d) {
    g->in[first + d] = input_shape.dim_size(d + 1);
    g->window[first + d] = options.ksize[d + 1];
    g->stride[first + d] = options.strides[d + 1];
  }
  g->depth_window = options.ksize[spatial + 1];
  const int64_t depth_stride = options.strides[spatial + 1];
  if (g->depth_window != 1) {
    bool spatial_window = false;
    for (int d = first; d < 3; ++d) spatial_window |= g->window[d] != 1;
    if (spatial_window) {
      return Unimplemented(kernel,
                           "MaxPooling supports exactly one of pooling across "
                           "depth or pooling across width/height.");
    }
    if (!allow_depth_pooling) {
      return Unimplemented(kernel, "Non-spatial pooling is not yet supported.");
    }
    if (g->depth % g->depth_window != 0) {
      return Unimplemented(kernel,
                           "Depthwise max pooling requires the depth window "
                           "to evenly divide the input depth.");
    }
    if (depth_stride != g->depth_window) {
      return Unimplemented(kernel,
                           "Depthwise max pooling requires the depth window "
                           "to equal the depth stride.");
    }
    if (options.padding == PoolPadding::kExplicit) {
      return Unimplemented(
          kernel, "Depthwise max pooling does not support explicit padding.");
    }
    // Spatially the identity, whatever the spatial strides say.
    for (int d = 0; d < 3; ++d) {
      g->out[d] = g->in[d];
      g->stride[d] = 1;
    }
    g->out_depth = g->depth / g->depth_window;
  } else {
    for (int d = first; d < 3; ++d) {
      const int dim = d - first + 1;  // in the attrs' order
      int64_t before = 0, after = 0;
      if (options.padding == PoolPadding::kExplicit) {
        before = options.explicit_paddings[2 * dim];
        after = options.explicit_paddings[2 * dim + 1];
        const bool rows = d == 1;
        if (before >= g->window[d] || after >= g->window[d]) {
          const bool first_side = before >= g->window[d];
          return NodeInvalidArgument(
              kernel,
              first_side ? (rows ? "Top" : "Left")
                         : (rows ? "Bottom" : "Right"),
              " padding ", first_side ? before : after,
              " needs to be smaller than the window size ", g->window[d]);
        }
      }
      SF_RETURN_IF_ERROR(WindowedOutputSize(
          kernel, g->in[d], g->window[d], g->stride[d], options.padding, before,
          after, &g->out[d], &g->pad[d]));
    }
    g->out_depth = g->depth;
  }
  return absl::OkStatus();
}

absl::Status PoolInputShapeFromTensor(const OpKernel& kernel,
                                      const Tensor& shape_tensor,
                                      int spatial_dims, TensorShape* shape) {
  const int rank = spatial_dims + 2;
  if (shape_tensor.dims() != 1 || shape_tensor.NumElements() != rank) {
    return NodeInvalidArgument(kernel,
                               "orig_input_shape must be 1-dimensional "
                               "and ",
                               rank, " elements");
  }
  std::vector<int64_t> dims(shape_tensor.base<int32_t>(),
                            shape_tensor.base<int32_t>() + rank);
  return MakeOutputShape(kernel, dims, kernel.output_type(0), shape);
}

absl::Status CheckPoolShape(const OpKernel& kernel, const char* what,
                            const Tensor& t, const TensorShape& shape) {
  if (t.shape() != shape) {
    return NodeInvalidArgument(kernel, "Expected ", what, " shape to be ",
                               shape.DebugString(), ", but got ",
                               t.shape().DebugString());
  }
  return absl::OkStatus();
}

}  // namespace stepflow
