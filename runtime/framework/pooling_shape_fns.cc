// Shape functions of MaxPool and its relatives, the 3-D pools and
// convolutions and LRNGrad (declared in pooling_shape_fns.h; MaxPoolShape
// in common_shape_fns.h).
#include "runtime/framework/pooling_shape_fns.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// A 2-D data format's dimension positions (strides, ksize and explicit
// paddings are indexed the same way); NCHW_VECT_C has a fifth, inner
// channel dimension.
struct Format2D {
  bool vect_c = false;
  int n = 0, h = 1, w = 2, ch = 3;
};

absl::Status GetFormat2D(InferenceContext* c, Format2D* f) {
  std::string format = "NHWC";
  if (c->GetAttr("data_format") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  }
  if (format == "NCHW" || format == "NCHW_VECT_C") {
    f->vect_c = format == "NCHW_VECT_C";
    f->ch = 1;
    f->h = 2;
    f->w = 3;
  }
  return absl::OkStatus();
}

// The input as the format's rank; NCHW_VECT_C's inner dimension must be 4
// or 32.
absl::Status PoolInput(InferenceContext* c, const Format2D& f,
                       ShapeHandle* input) {
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), f.vect_c ? 5 : 4, input));
  if (f.vect_c) {
    const int64_t v = c->Value(c->Dim(*input, 4));
    if (v != 4 && v != 32) {
      return absl::InvalidArgumentError(
          absl::StrCat("VECT_C dimension must be 4 or 32, but is ", v));
    }
  }
  return absl::OkStatus();
}

// Explicit paddings: one pair per dimension, non-negative, none on the
// batch or channels; empty unless padding is EXPLICIT.
absl::Status CheckExplicitPaddings(const std::string& padding,
                                   const std::vector<int64_t>& paddings,
                                   const Format2D& f) {
  if (padding != "EXPLICIT") {
    if (!paddings.empty()) {
      return absl::InvalidArgumentError(
          "explicit_paddings attribute must be empty if the padding attribute "
          "is not EXPLICIT");
    }
    return absl::OkStatus();
  }
  if (paddings.size() != 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("explicit_paddings attribute must contain 8 values, but "
                     "got: ",
                     paddings.size()));
  }
  for (int64_t p : paddings) {
    if (p < 0) {
      return absl::InvalidArgumentError(
          "All elements of explicit_paddings must be nonnegative");
    }
  }
  if (paddings[2 * f.n] != 0 || paddings[2 * f.n + 1] != 0 ||
      paddings[2 * f.ch] != 0 || paddings[2 * f.ch + 1] != 0) {
    return absl::InvalidArgumentError(
        "Nonzero explicit padding in the batch or depth dimensions is not "
        "supported");
  }
  return absl::OkStatus();
}

// MaxPool's window sizes and strides: 4 values each.
absl::Status CheckWindowLengths(const std::vector<int64_t>& ksize,
                                const std::vector<int64_t>& strides) {
  if (strides.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MaxPool requires the stride attribute to contain 4 values, but got: ",
        strides.size()));
  }
  if (ksize.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MaxPool requires the ksize attribute to contain 4 values, but got: ",
        ksize.size()));
  }
  return absl::OkStatus();
}

// MaxPool's output from its input, window sizes and strides (in the data
// format's order) and padding (explicit paddings used only with EXPLICIT).
absl::Status MaxPoolOutput(InferenceContext* c, const Format2D& f,
                           ShapeHandle input, const std::vector<int64_t>& ksize,
                           const std::vector<int64_t>& strides,
                           const std::string& padding,
                           const std::vector<int64_t>& paddings) {
  DimensionHandle out[4];
  out[f.n] = c->Dim(input, f.n);
  for (int d : {f.h, f.w, f.ch}) {
    int64_t before = 0, after = 0;
    if (padding == "EXPLICIT" && d != f.ch) {
      before = paddings[2 * d];
      after = paddings[2 * d + 1];
    }
    SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(
        c, c->Dim(input, d), ksize[d], 1, strides[d], padding, before, after,
        &out[d]));
  }
  if (f.vect_c) {
    c->set_output(0, c->MakeShape({out[0], out[1], out[2], out[3], 4}));
  } else {
    c->set_output(0, c->MakeShape({out[0], out[1], out[2], out[3]}));
  }
  return absl::OkStatus();
}

// MaxPoolV2's window sizes and strides from its last two inputs; false in
// *known when either is not constant.
absl::Status WindowInputs(InferenceContext* c, std::vector<int64_t>* ksize,
                          std::vector<int64_t>* strides, bool* known) {
  const int n = c->num_inputs();
  for (int i = n - 2; i < n; ++i) {
    ShapeHandle v;
    DimensionHandle unused;
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &v));
    SF_RETURN_IF_ERROR(c->WithValue(c->Dim(v, 0), 4, &unused));
  }
  *known = false;
  const Tensor* k = c->input_tensor(n - 2);
  if (k == nullptr) return absl::OkStatus();
  *ksize = FlatInt64(*k);
  const Tensor* s = c->input_tensor(n - 1);
  if (s == nullptr) return absl::OkStatus();
  *strides = FlatInt64(*s);
  *known = true;
  return absl::OkStatus();
}

absl::Status MaxPoolV2Impl(InferenceContext* c) {
  Format2D f;
  SF_RETURN_IF_ERROR(GetFormat2D(c, &f));
  ShapeHandle input;
  SF_RETURN_IF_ERROR(PoolInput(c, f, &input));
  std::vector<int64_t> ksize, strides;
  bool known = false;
  SF_RETURN_IF_ERROR(WindowInputs(c, &ksize, &strides, &known));
  if (!known) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  SF_RETURN_IF_ERROR(CheckWindowLengths(ksize, strides));
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  return MaxPoolOutput(c, f, input, ksize, strides, padding, {});
}

// The second-order gradients: orig_input (0) ~ grad (2) and orig_output
// (1) ~ the output.
absl::Status CheckGradGradInputs(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(2), &unused));
  return c->Merge(c->input(1), c->output(0), &unused);
}

}  // namespace

absl::Status MaxPoolShape(InferenceContext* c) {
  Format2D f;
  SF_RETURN_IF_ERROR(GetFormat2D(c, &f));
  ShapeHandle input;
  SF_RETURN_IF_ERROR(PoolInput(c, f, &input));
  std::vector<int64_t> ksize, strides, paddings;
  SF_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  SF_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  SF_RETURN_IF_ERROR(CheckWindowLengths(ksize, strides));
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  if (c->GetAttr("explicit_paddings") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &paddings));
    SF_RETURN_IF_ERROR(CheckExplicitPaddings(padding, paddings, f));
  }
  return MaxPoolOutput(c, f, input, ksize, strides, padding, paddings);
}

absl::Status MaxPoolV2Shape(InferenceContext* c) { return MaxPoolV2Impl(c); }

absl::Status MaxPoolWithArgmaxShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(MaxPoolShape(c));
  c->set_output(1, c->output(0));
  return absl::OkStatus();
}

absl::Status MaxPoolGradGradShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(MaxPoolShape(c));
  return CheckGradGradInputs(c);
}

absl::Status MaxPoolGradGradV2Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(MaxPoolV2Impl(c));
  return CheckGradGradInputs(c);
}

namespace {

// A 3-D op's input, in NDHWC order (an NCDHW one permuted).
struct Spatial3D {
  bool channels_first = false;
  ShapeHandle ndhwc;
};

absl::Status Input3D(InferenceContext* c, Spatial3D* s) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  std::string format;
  if (c->GetAttr("data_format") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  }
  s->channels_first = format == "NCDHW";
  s->ndhwc = input;
  if (s->channels_first) {
    s->ndhwc =
        c->MakeShape({c->Dim(input, 0), c->Dim(input, 2), c->Dim(input, 3),
                      c->Dim(input, 4), c->Dim(input, 1)});
  }
  return absl::OkStatus();
}

// Entries [planes, rows, cols] of a 5-value attr list in the data format.
absl::Status Attr3D(InferenceContext* c, const Spatial3D& s, const char* name,
                    const std::string& length_error, int64_t out[3]) {
  std::vector<int64_t> v;
  SF_RETURN_IF_ERROR(c->GetAttr(name, &v));
  if (v.size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(length_error, v.size()));
  }
  const int first = s.channels_first ? 2 : 1;
  for (int i = 0; i < 3; ++i) out[i] = v[first + i];
  return absl::OkStatus();
}

ShapeHandle Output3D(InferenceContext* c, const Spatial3D& s,
                     DimensionHandle batch, const DimensionHandle spatial[3],
                     DimensionHandle depth) {
  if (s.channels_first) {
    return c->MakeShape({batch, depth, spatial[0], spatial[1], spatial[2]});
  }
  return c->MakeShape({batch, spatial[0], spatial[1], spatial[2], depth});
}

}  // namespace

absl::Status Pool3DShape(InferenceContext* c) {
  Spatial3D s;
  SF_RETURN_IF_ERROR(Input3D(c, &s));
  int64_t strides[3], ksize[3];
  SF_RETURN_IF_ERROR(Attr3D(c, s, "strides",
                            "Pool3D ops require the stride attribute to "
                            "contain 5 values, but got: ",
                            strides));
  SF_RETURN_IF_ERROR(Attr3D(c, s, "ksize",
                            "Pool3D requires the ksize attribute to contain 5 "
                            "values, but got: ",
                            ksize));
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  DimensionHandle out[3];
  for (int i = 0; i < 3; ++i) {
    SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(c, c->Dim(s.ndhwc, i + 1),
                                                     ksize[i], 1, strides[i],
                                                     padding, 0, 0, &out[i]));
  }
  c->set_output(0, Output3D(c, s, c->Dim(s.ndhwc, 0), out, c->Dim(s.ndhwc, 4)));
  return absl::OkStatus();
}

absl::Status MaxPool3DGradGradShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(Pool3DShape(c));
  return CheckGradGradInputs(c);
}

absl::Status Conv3DShape(InferenceContext* c) {
  Spatial3D s;
  SF_RETURN_IF_ERROR(Input3D(c, &s));
  ShapeHandle filter;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, &filter));
  int64_t dilations[3], strides[3];
  SF_RETURN_IF_ERROR(Attr3D(c, s, "dilations",
                            "Conv3D requires the dilation attribute to "
                            "contain 5 values, but got: ",
                            dilations));
  SF_RETURN_IF_ERROR(Attr3D(c, s, "strides",
                            "Conv3D requires the stride attribute to contain "
                            "5 values, but got: ",
                            strides));
  // TensorFlow applies the rows' dilation to the columns and the columns'
  // to the rows; the shapes follow it.
  std::swap(dilations[1], dilations[2]);
  DimensionHandle in_depth = c->Dim(s.ndhwc, 4);
  DimensionHandle filter_depth = c->Dim(filter, 3);
  DimensionHandle out_depth = c->Dim(filter, 4);
  SF_RETURN_IF_ERROR(CheckConvDepths(c, in_depth, filter_depth, out_depth));
  std::string padding;
  SF_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  DimensionHandle out[3];
  for (int i = 0; i < 3; ++i) {
    SF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDims(
        c, c->Dim(s.ndhwc, i + 1), c->Dim(filter, i), dilations[i], strides[i],
        padding, 0, 0, &out[i]));
  }
  c->set_output(0, Output3D(c, s, c->Dim(s.ndhwc, 0), out, out_depth));
  return absl::OkStatus();
}

absl::Status ShapeFromInputTensorRank5(InferenceContext* c, int input) {
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(input, &s));
  SF_RETURN_IF_ERROR(c->WithRank(s, 5, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status LRNGradShape(InferenceContext* c) {
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &s));
  SF_RETURN_IF_ERROR(c->Merge(s, c->input(1), &s));
  SF_RETURN_IF_ERROR(c->Merge(s, c->input(2), &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
