#include "runtime/kernels/conv_geometry.h"

#include <string>

#include "absl/strings/str_join.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status ReadConvAttrs(OpKernelConstruction* ctx, const OpKernel& kernel,
                           int num_spatial, ConvAttrs* attrs) {
  attrs->num_spatial = num_spatial;
  absl::Status s = ctx->GetAttr("strides", &attrs->strides);
  if (!s.ok()) return s;
  if (ctx->HasAttr("dilations")) {
    s = ctx->GetAttr("dilations", &attrs->dilations);
    if (!s.ok()) return s;
  } else {
    attrs->dilations.assign(num_spatial + 2, 1);
  }
  std::string padding;
  s = ctx->GetAttr("padding", &padding);
  if (!s.ok()) return s;
  if (padding == "SAME") {
    attrs->padding = ConvPadding::kSame;
  } else if (padding == "VALID") {
    attrs->padding = ConvPadding::kValid;
  } else if (padding == "EXPLICIT" && ctx->HasAttr("explicit_paddings")) {
    attrs->padding = ConvPadding::kExplicit;
  } else {
    return NodeInvalidArgument(kernel, "Invalid padding: ", padding);
  }
  if (ctx->HasAttr("explicit_paddings")) {
    s = ctx->GetAttr("explicit_paddings", &attrs->explicit_paddings);
    if (!s.ok()) return s;
  }
  std::string format = num_spatial == 3 ? "NDHWC" : "NHWC";
  if (ctx->HasAttr("data_format")) {
    s = ctx->GetAttr("data_format", &format);
    if (!s.ok()) return s;
  }
  if (format == "NHWC" || format == "NDHWC") {
    attrs->channels_last = true;
  } else if (format == "NCHW" || format == "NCDHW") {
    attrs->channels_last = false;
  } else {
    return NodeInvalidArgument(kernel, "Invalid data format: ", format);
  }
  if ((format.size() == 4) != (num_spatial == 2)) {
    return NodeInvalidArgument(kernel, "Invalid data format: ", format);
  }
  return absl::OkStatus();
}

absl::Status CheckExplicitPaddings(const OpKernel& kernel,
                                   const ConvAttrs& attrs) {
  const std::vector<int64_t>& p = attrs.explicit_paddings;
  if (attrs.padding != ConvPadding::kExplicit) {
    if (!p.empty()) {
      return NodeInvalidArgument(
          kernel,
          "explicit_paddings attribute must be empty if the padding attribute "
          "is not EXPLICIT");
    }
    return absl::OkStatus();
  }
  if (static_cast<int>(p.size()) != 2 * attrs.rank()) {
    return NodeInvalidArgument(
        kernel, "explicit_paddings attribute must contain ", 2 * attrs.rank(),
        " values, but got: ", p.size());
  }
  for (int64_t v : p) {
    if (v < 0) {
      return NodeInvalidArgument(
          kernel, "All elements of explicit_paddings must be nonnegative");
    }
  }
  const int n = 0;
  const int c = attrs.channel_dim();
  if (p[2 * n] != 0 || p[2 * n + 1] != 0 || p[2 * c] != 0 ||
      p[2 * c + 1] != 0) {
    return NodeInvalidArgument(kernel,
                               "Nonzero explicit padding in the batch or "
                               "depth dimensions is not supported");
  }
  return absl::OkStatus();
}

absl::Status ValidateConvAttrs(const OpKernel& kernel, const ConvAttrs& attrs,
                               const ConvAttrPolicy& policy) {
  const int rank = attrs.rank();
  if (static_cast<int>(attrs.strides.size()) != rank) {
    return NodeInvalidArgument(kernel,
                               "Sliding window strides field must specify ",
                               rank, " dimensions");
  }
  if (static_cast<int>(attrs.dilations.size()) != rank) {
    return NodeInvalidArgument(kernel,
                               "Sliding window dilations field must specify ",
                               rank, " dimensions");
  }
  const int c = attrs.channel_dim();
  if (attrs.strides[0] != 1 || attrs.strides[c] != 1) {
    return NodeError(policy.batch_stride_code, kernel,
                     "Current implementation does not yet support strides in "
                     "the batch and depth dimensions.");
  }
  const bool ignore = policy.dilations == ConvAttrPolicy::Dilations::kIgnore;
  if (!ignore && (attrs.dilations[0] != 1 || attrs.dilations[c] != 1)) {
    return NodeInvalidArgument(kernel,
                               "Current implementation does not yet support "
                               "dilations in the batch and depth dimensions.");
  }
  for (int i = 0; i < attrs.num_spatial; ++i) {
    const int d = attrs.spatial_dim(i);
    if (attrs.strides[d] <= 0) {
      return NodeInvalidArgument(kernel, "Stride must be > 0, but got ",
                                 attrs.strides[d]);
    }
    if (!ignore && attrs.dilations[d] <= 0) {
      return NodeInvalidArgument(kernel,
                                 "Dilated rates should be larger than "
                                 "0, but got ",
                                 attrs.dilations[d]);
    }
  }
  absl::Status s = CheckExplicitPaddings(kernel, attrs);
  if (!s.ok()) return s;
  if (!attrs.channels_last) {
    return NodeError(
        policy.channels_first_code, kernel, "The CPU implementation of ",
        kernel.type_string(), " only supports the channels-last (",
        attrs.num_spatial == 3 ? "NDHWC" : "NHWC", ") data format");
  }
  if (policy.equal_strides && attrs.strides[1] != attrs.strides[2]) {
    return NodeInvalidArgument(kernel,
                               "Current implementation only supports equal "
                               "length strides in the row and column "
                               "dimensions.");
  }
  if (policy.dilations == ConvAttrPolicy::Dilations::kRefuse) {
    for (int i = 0; i < attrs.num_spatial; ++i) {
      if (attrs.dilations[attrs.spatial_dim(i)] != 1) {
        return NodeError(policy.dilation_code, kernel,
                         "Current CPU implementations do not yet support "
                         "dilation rates larger than 1.");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ConvOutputSize(const OpKernel& kernel, int64_t in, int64_t filter,
                            int64_t dilation, int64_t stride,
                            ConvPadding padding, int64_t explicit_before,
                            int64_t explicit_after, int64_t* out,
                            int64_t* pad_before) {
  if (stride <= 0) {
    return NodeInvalidArgument(kernel, "Stride must be > 0, but got ", stride);
  }
  if (dilation < 1) {
    return NodeInvalidArgument(kernel, "Dilation rate must be >= 1, but got ",
                               dilation);
  }
  const int64_t effective = (filter - 1) * dilation + 1;
  switch (padding) {
    case ConvPadding::kValid:
      *out = (in - effective + stride) / stride;
      *pad_before = 0;
      break;
    case ConvPadding::kExplicit:
      *out =
          (in + explicit_before + explicit_after - effective + stride) / stride;
      *pad_before = explicit_before;
      break;
    case ConvPadding::kSame: {
      *out = (in + stride - 1) / stride;
      const int64_t total = (*out - 1) * stride + effective - in;
      *pad_before = total > 0 ? total / 2 : 0;
      break;
    }
  }
  if (*out < 0) {
    return NodeInvalidArgument(
        kernel, "Computed output size would be negative: ", *out,
        " [input_size: ", in, ", effective_filter_size: ", effective,
        ", stride: ", stride, "]");
  }
  return absl::OkStatus();
}

bool ConvGeometry::is_pointwise() const {
  for (int i = 0; i < 3; ++i) {
    if (filter[i] != 1 || stride[i] != 1 || pad[i] != 0 || in[i] != out[i]) {
      return false;
    }
  }
  return groups == 1;
}

absl::Status ComputeConvGeometry(const OpKernel& kernel, const ConvAttrs& attrs,
                                 const int64_t* in_spatial,
                                 const int64_t* filter_spatial,
                                 ConvGeometry* geo) {
  const int offset = 3 - attrs.num_spatial;  // 2-D: D stays 1.
  for (int i = 0; i < attrs.num_spatial; ++i) {
    const int d = attrs.spatial_dim(i);
    const int j = offset + i;
    geo->in[j] = in_spatial[i];
    geo->filter[j] = filter_spatial[i];
    geo->stride[j] = attrs.strides[d];
    geo->dilation[j] = attrs.dilations[d];
    int64_t before = 0, after = 0;
    if (attrs.padding == ConvPadding::kExplicit) {
      before = attrs.explicit_paddings[2 * d];
      after = attrs.explicit_paddings[2 * d + 1];
    }
    absl::Status s = ConvOutputSize(
        kernel, geo->in[j], geo->filter[j], geo->dilation[j], geo->stride[j],
        attrs.padding, before, after, &geo->out[j], &geo->pad[j]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {
TensorShape ChannelsLastShape(int64_t batch, const int64_t* spatial,
                              int64_t depth, int num_spatial) {
  TensorShape shape;
  shape.AddDim(batch);
  for (int i = 3 - num_spatial; i < 3; ++i) shape.AddDim(spatial[i]);
  shape.AddDim(depth);
  return shape;
}
}  // namespace

TensorShape ConvOutputShape(const ConvGeometry& geo, int num_spatial) {
  return ChannelsLastShape(geo.batch, geo.out, geo.out_depth, num_spatial);
}

TensorShape ConvInputShape(const ConvGeometry& geo, int num_spatial) {
  return ChannelsLastShape(geo.batch, geo.in, geo.in_depth, num_spatial);
}

absl::Status CheckOutBackpropShape(const OpKernel& kernel,
                                   const ConvGeometry& geo, int num_spatial,
                                   const TensorShape& out_backprop) {
  if (out_backprop.dims() != num_spatial + 2) {
    return NodeInvalidArgument(kernel, "out_backprop must be ", num_spatial + 2,
                               "-dimensional");
  }
  if (out_backprop.dim_size(0) != geo.batch) {
    return NodeInvalidArgument(
        kernel,
        "input and out_backprop must have the same batch size, input "
        "batch: ",
        geo.batch, " outbackprop batch: ", out_backprop.dim_size(0));
  }
  for (int i = 0; i < num_spatial; ++i) {
    const int j = 3 - num_spatial + i;
    if (out_backprop.dim_size(1 + i) != geo.out[j]) {
      return NodeInvalidArgument(
          kernel, "Size of out_backprop doesn't match computed: actual = ",
          out_backprop.dim_size(1 + i), ", computed = ", geo.out[j],
          " spatial_dim: ", i + 1, " input: ", geo.in[j],
          " filter: ", geo.filter[j], " output: ", out_backprop.dim_size(1 + i),
          " stride: ", geo.stride[j], " dilation: ", geo.dilation[j]);
    }
  }
  if (out_backprop.dim_size(num_spatial + 1) != geo.out_depth) {
    return NodeInvalidArgument(kernel, "Computed output depth ", geo.out_depth,
                               " doesn't match out_backprop depth ",
                               out_backprop.dim_size(num_spatial + 1));
  }
  return absl::OkStatus();
}

absl::Status ReadSizesTensor(const OpKernel& kernel, const Tensor& t, int rank,
                             const char* what, std::vector<int64_t>* dims) {
  if (t.dims() != 1) {
    return NodeInvalidArgument(kernel, what, " must be 1-dimensional, got ",
                               t.shape().DebugString());
  }
  if (t.NumElements() != rank) {
    return NodeInvalidArgument(kernel, what, " must have ", rank,
                               " elements, got ", t.NumElements());
  }
  absl::Status s = IndexTensorToVector(kernel, t, dims);
  if (!s.ok()) return s;
  for (int64_t d : *dims) {
    if (d < 0) {
      return NodeInvalidArgument(kernel, what, " must not be negative, got [",
                                 absl::StrJoin(*dims, ","), "]");
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
