// Shape functions of the neural-network ops: bias, 2-D convolution,
// average pooling, fused batch normalisation (declared in common_shape_fns.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// Positions of batch, height, width and channels in a 4-D shape.
struct Layout {
  int n, h, w, c;
};

Layout LayoutOf(const std::string& data_format) {
  if (data_format == "NCHW") return {0, 2, 3, 1};
  return {0, 1, 2, 3};
}

absl::Status GetDataFormat(InferenceContext* c, std::string* format) {
  *format = "NHWC";
  if (c->GetAttr("data_format") == nullptr) return absl::OkStatus();
  return c->GetAttr("data_format", format);
}

ShapeHandle MakeNhwc(InferenceContext* c, const Layout& l, DimensionHandle n,
                     DimensionHandle h, DimensionHandle w, DimensionHandle ch) {
  std::vector<DimensionHandle> dims(4);
  dims[l.n] = n;
  dims[l.h] = h;
  dims[l.w] = w;
  dims[l.c] = ch;
  return c->MakeShape(std::move(dims));
}

absl::Status CheckFourValues(InferenceContext* c, const std::string& attr,
                             const char* what, std::vector<int64_t>* v) {
  SF_RETURN_IF_ERROR(c->GetAttr(attr, v));
  if (v->size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(c->op_def().name(), " requires the ", what,
                     " attribute to contain 4 values, but got: ", v->size()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status GetWindowedOutputSizeFromDims(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    const std::string& padding, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size) {
  if (stride <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation_rate < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dilation rate must be >= 1, but got ", dilation_rate));
  }
  if (padding == "SAME") {
    SF_RETURN_IF_ERROR(c->Add(input_size, stride - 1, output_size));
    return c->Divide(*output_size, stride, false, output_size);
  }
  if (padding != "EXPLICIT") padding_before = padding_after = 0;
  SF_RETURN_IF_ERROR(
      c->Add(input_size, padding_before + padding_after, &input_size));
  if (dilation_rate > 1) {
    DimensionHandle window;
    SF_RETURN_IF_ERROR(c->Subtract(c->MakeDim(filter_size), 1, &window));
    SF_RETURN_IF_ERROR(c->Multiply(window, dilation_rate, &window));
    SF_RETURN_IF_ERROR(c->Add(window, 1, &window));
    SF_RETURN_IF_ERROR(c->Subtract(input_size, window, output_size));
  } else {
    SF_RETURN_IF_ERROR(c->Subtract(input_size, filter_size, output_size));
  }
  SF_RETURN_IF_ERROR(c->Add(*output_size, stride, output_size));
  return c->Divide(*output_size, stride, false, output_size);
}

absl::Status CheckConvDepths(InferenceContext* c, DimensionHandle in_depth,
                             DimensionHandle filter_in_depth,
                             DimensionHandle out_depth) {
  if (!c->ValueKnown(in_depth) || !c->ValueKnown(filter_in_depth)) {
    return absl::OkStatus();
  }
  const int64_t in = c->Value(in_depth), fin = c->Value(filter_in_depth);
  if (fin == 0) {
    return absl::InvalidArgumentError("Depth of filter must not be 0");
  }
  if (in % fin != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Depth of input (", in,
        ") is not a multiple of input depth of filter (", fin, ")"));
  }
  const int64_t groups = in / fin;
  if (in != fin && c->ValueKnown(out_depth) &&
      c->Value(out_depth) % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Depth of output (", c->Value(out_depth),
        ") is not a multiple of the number of groups (", groups, ")"));
  }
  return absl::OkStatus();
}

absl::Status BiasAddShape(InferenceContext* c) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const bool nchw = format == "NCHW";
  ShapeHandle input, bias;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  DimensionHandle bias_dim = c->Dim(bias, 0);
  if (!c->RankKnown(input)) return UnknownShape(c);
  ShapeHandle out;
  DimensionHandle merged;
  if (nchw) {
    ShapeHandle first, last, tmp;
    SF_RETURN_IF_ERROR(c->Subshape(input, 0, 1, &first));
    SF_RETURN_IF_ERROR(c->Subshape(input, 2, &last));
    SF_RETURN_IF_ERROR(c->Merge(c->Dim(input, 1), bias_dim, &merged));
    SF_RETURN_IF_ERROR(c->Concatenate(first, c->Vector(merged), &tmp));
    SF_RETURN_IF_ERROR(c->Concatenate(tmp, last, &out));
  } else {
    ShapeHandle all_but_bias;
    SF_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &all_but_bias));
    SF_RETURN_IF_ERROR(c->Merge(c->Dim(input, -1), bias_dim, &merged));
    SF_RETURN_IF_ERROR(c->Concatenate(all_but_bias, c->Vector(merged), &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BiasAddGradShape(InferenceContext* c) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  ShapeHandle input;
  if (format == "NCHW") {
    SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 3, &input));
    c->set_output(0, c->Vector(c->Dim(input, 1)));
  } else {
    SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
    c->set_output(0, c->Vector(c->Dim(input, -1)));
  }
  return absl::OkStatus();
}

namespace {

// Explicit paddings of dimension `d` (pairs per dimension).
void ExplicitPadding(const std::vector<int64_t>& paddings, int d,
                     int64_t* before, int64_t* after) {
  *before = *after = 0;
  if (static_cast<int>(paddings.size()) >= 2 * (d + 1)) {
    *before = paddings[2 * d];
    *after = paddings[2 * d + 1];
  }
}

absl::Status ConvShape(InferenceContext* c, bool depthwise) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const Layout l = LayoutOf(format);
  ShapeHandle input, filter;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1};
  SF_RETURN_IF_ERROR(CheckFourValues(c, "strides", "stride", &strides));
  if (c->GetAttr("dilations") != nullptr) {
    SF_RETURN_IF_ERROR(CheckFourValues(c, "dilations", "dilation", &dilations));
  }
  DimensionHandle batch = c->Dim(input, l.n);
  DimensionHandle in_rows = c->Dim(input, l.h);
  DimensionHandle in_cols = c->Dim(input, l.w);
  DimensionHandle in_depth = c->Dim(input, l.c);
  DimensionHandle filter_rows = c->Dim(filter, 0);
  DimensionHandle filter_cols = c->Dim(filter, 1);
  DimensionHandle filter_in = c->Dim(filter, 2);
  DimensionHandle out_depth;
  if (depthwise) {
    SF_RETURN_IF_ERROR(c->Merge(in_depth, filter_in, &in_depth));
    SF_RETURN_IF_ERROR(c->Multiply(filter_in, c->Dim(filter, 3), &out_depth));
  } else {
    out_depth = c->Dim(filter, 3);
    SF_RETURN_IF_ERROR(CheckConvDepths(c, in_depth, filter_in, out_depth));
  }
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  std::vector<int64_t> explicit_paddings;
  if (padding == "EXPLICIT") {
    SF_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &explicit_paddings));
  }
  int64_t rb, ra, cb, ca;
  ExplicitPadding(explicit_paddings, l.h, &rb, &ra);
  ExplicitPadding(explicit_paddings, l.w, &cb, &ca);
  DimensionHandle out_rows, out_cols;
  SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(c, in_rows, filter_rows,
                                                   dilations[l.h], strides[l.h],
                                                   padding, rb, ra, &out_rows));
  SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(c, in_cols, filter_cols,
                                                   dilations[l.w], strides[l.w],
                                                   padding, cb, ca, &out_cols));
  c->set_output(0, MakeNhwc(c, l, batch, out_rows, out_cols, out_depth));
  return absl::OkStatus();
}

absl::Status PoolShape(InferenceContext* c) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const Layout l = LayoutOf(format);
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<int64_t> strides, ksize;
  SF_RETURN_IF_ERROR(CheckFourValues(c, "strides", "stride", &strides));
  SF_RETURN_IF_ERROR(CheckFourValues(c, "ksize", "ksize", &ksize));
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  std::vector<int64_t> explicit_paddings;
  if (padding == "EXPLICIT" && c->GetAttr("explicit_paddings") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &explicit_paddings));
  }
  DimensionHandle out[4];
  const int dims[3] = {l.h, l.w, l.c};
  out[l.n] = c->Dim(input, l.n);
  for (int d : dims) {
    int64_t before, after;
    ExplicitPadding(explicit_paddings, d, &before, &after);
    SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(
        c, c->Dim(input, d), ksize[d], 1, strides[d], padding, before, after,
        &out[d]));
  }
  c->set_output(0, c->MakeShape({out[0], out[1], out[2], out[3]}));
  return absl::OkStatus();
}

}  // namespace

absl::Status Conv2DShape(InferenceContext* c) { return ConvShape(c, false); }

absl::Status DepthwiseConv2DNativeShape(InferenceContext* c) {
  return ConvShape(c, true);
}

absl::Status AvgPoolShape(InferenceContext* c) { return PoolShape(c); }

namespace {

// The rank follows the data format: 5 for NDHWC/NCDHW, else 4.
absl::Status BatchNormShape(InferenceContext* c) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const int rank = format == "NDHWC" || format == "NCDHW" ? 5 : 4;
  ShapeHandle x;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &x));
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  const int channel = channels_first ? 1 : rank - 1;
  bool is_training = true;
  SF_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float avg_factor = 1.0f;
  if (c->GetAttr("exponential_avg_factor") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("exponential_avg_factor", &avg_factor));
  }
  const int num_inputs = is_training && avg_factor == 1.0f ? 3 : 5;
  DimensionHandle channel_dim = c->Dim(x, channel);
  for (int i = 1; i < num_inputs; ++i) {
    ShapeHandle vec;
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    SF_RETURN_IF_ERROR(c->Merge(channel_dim, c->Dim(vec, 0), &channel_dim));
  }
  ShapeHandle y;
  SF_RETURN_IF_ERROR(c->ReplaceDim(x, channel, channel_dim, &y));
  c->set_output(0, y);
  ShapeHandle vector = c->Vector(channel_dim);
  for (int i = 1; i < 5 && i < c->num_outputs(); ++i) c->set_output(i, vector);
  return absl::OkStatus();
}

}  // namespace

absl::Status FusedBatchNormShape(InferenceContext* c) {
  return BatchNormShape(c);
}

absl::Status FusedBatchNormV3Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(BatchNormShape(c));
  if (c->num_outputs() > 5) c->set_output(5, c->UnknownShape());
  return absl::OkStatus();
}

absl::Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string format;
  SF_RETURN_IF_ERROR(GetDataFormat(c, &format));
  const int rank = format == "NDHWC" || format == "NCDHW" ? 5 : 4;
  const int channel = format == "NCHW" || format == "NCDHW" ? 1 : rank - 1;
  ShapeHandle y_backprop, x;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &y_backprop));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), rank, &x));
  bool is_training = true;
  SF_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  DimensionHandle channel_dim = c->Dim(y_backprop, channel);
  SF_RETURN_IF_ERROR(c->Merge(channel_dim, c->Dim(x, channel), &channel_dim));
  for (int i = 2; i < 5; ++i) {
    ShapeHandle vec;
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    SF_RETURN_IF_ERROR(c->Merge(channel_dim, c->Dim(vec, 0), &channel_dim));
  }
  ShapeHandle x_backprop;
  SF_RETURN_IF_ERROR(
      c->ReplaceDim(y_backprop, channel, channel_dim, &x_backprop));
  c->set_output(0, x_backprop);
  c->set_output(1, c->Vector(channel_dim));
  c->set_output(2, c->Vector(channel_dim));
  for (int i = 3; i < c->num_outputs(); ++i) c->set_output(i, c->Vector(0));
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
