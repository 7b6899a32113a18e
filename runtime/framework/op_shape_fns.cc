#include "runtime/framework/op_shape_fns.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/image_shape_fns.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

bool IsInt(const Tensor* t) {
  return t->dtype() == DT_INT32 || t->dtype() == DT_INT64;
}

absl::Status AxisForPackUnpack(InferenceContext* c, int32_t rank_after,
                               int32_t* axis) {
  SF_RETURN_IF_ERROR(c->GetAttr("axis", axis));
  if (*axis < -rank_after || *axis >= rank_after) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid axis: ", *axis, "; must be in [", -rank_after,
                     ",", rank_after, ")"));
  }
  if (*axis < 0) *axis += rank_after;
  return absl::OkStatus();
}

}  // namespace

absl::Status ConstShape(InferenceContext* c) {
  const AttrValue* v = c->GetAttr("value");
  if (v == nullptr || !v->has_tensor()) return UnknownShape(c);
  ShapeHandle out;
  SF_RETURN_IF_ERROR(
      c->MakeShapeFromShapeProto(v->tensor().tensor_shape(), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ExplicitShape(InferenceContext* c) {
  TensorShapeProto proto;
  SF_RETURN_IF_ERROR(c->GetAttr("shape", &proto));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(ExplicitShape(c));
  ShapeHandle unused;
  // Checked for compatibility; the output keeps the (maybe less precise)
  // declared shape.
  return c->Merge(c->input(0), c->output(0), &unused);
}

absl::Status VarHandleShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  TensorShapeProto proto;
  SF_RETURN_IF_ERROR(c->GetAttr("shape", &proto));
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto, &s));
  c->set_output_handle_shapes_and_types(0, {ShapeAndType{s, dtype}});
  return absl::OkStatus();
}

absl::Status VariableHandleData(InferenceContext* c, ShapeAndType* out) {
  const auto* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->empty()) {
    *out = ShapeAndType{c->UnknownShape(), DT_INVALID};
    return absl::OkStatus();
  }
  *out = (*data)[0];
  DataType dtype;
  SF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (out->dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to read variable with wrong dtype. Expected ",
        DataTypeString(out->dtype), " got ", DataTypeString(dtype)));
  }
  return absl::OkStatus();
}

absl::Status ReadVariableShape(InferenceContext* c) {
  ShapeAndType var;
  SF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  c->set_output(0, var.shape);
  return absl::OkStatus();
}

absl::Status AssignVariableShape(InferenceContext* c) {
  ShapeAndType var;
  SF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  bool validate = true;
  if (c->GetAttr("validate_shape") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate));
  }
  if (!validate) return absl::OkStatus();
  ShapeHandle unused;
  return c->Merge(var.shape, c->input(1), &unused);
}

absl::Status AssignShape(InferenceContext* c) {
  bool validate = true;
  SF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate));
  if (validate) return MergeBothInputsShapeFn(c);
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

absl::Status ApplyShape(InferenceContext* c) {
  // Scalars by name; the update tensors merge with var.
  static const char* const kScalars[] = {
      "alpha",    "lr",          "l1",          "l2",
      "lr_power", "beta1_power", "beta2_power", "beta1",
      "beta2",    "epsilon",     "rho",         "momentum",
      "decay",    "global_step", "sign_decay",  "logbase"};
  static const char* const kLikeVar[] = {"delta",
                                         "grad",
                                         "accum",
                                         "m",
                                         "v",
                                         "ms",
                                         "mom",
                                         "mg",
                                         "linear",
                                         "vhat",
                                         "accum_update",
                                         "gradient_accumulator",
                                         "gradient_squared_accumulator"};
  std::vector<ShapeHandle> var;
  SF_RETURN_IF_ERROR(c->input("var", &var));
  if (var.empty()) return UnknownShape(c);
  ShapeHandle s = var[0];
  ShapeHandle unused;
  for (const OpDef::ArgDef& arg : c->op_def().input_arg()) {
    std::vector<ShapeHandle> in;
    SF_RETURN_IF_ERROR(c->input(arg.name(), &in));
    if (in.empty()) continue;
    for (const char* name : kScalars) {
      if (arg.name() == name)
        SF_RETURN_IF_ERROR(c->WithRank(in[0], 0, &unused));
    }
    for (const char* name : kLikeVar) {
      if (arg.name() == name) SF_RETURN_IF_ERROR(c->Merge(s, in[0], &s));
    }
  }
  if (c->num_outputs() > 0) c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status ShapeShape(InferenceContext* c) {
  c->set_output(0, c->Vector(c->Rank(c->input(0))));
  return absl::OkStatus();
}

absl::Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs() && i < c->num_outputs(); ++i) {
    c->set_output(i, c->Vector(c->Rank(c->input(i))));
  }
  return absl::OkStatus();
}

absl::Status PackShape(InferenceContext* c) {
  ShapeHandle cur;
  SF_RETURN_IF_ERROR(MergeAllInputs(c, &cur));
  if (!c->RankKnown(cur)) return UnknownShape(c);
  const int32_t rank = c->Rank(cur);
  int32_t axis;
  SF_RETURN_IF_ERROR(AxisForPackUnpack(c, rank + 1, &axis));
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < axis; ++i) dims.push_back(c->Dim(cur, i));
  dims.push_back(c->MakeDim(c->num_inputs()));
  for (int i = axis; i < rank; ++i) dims.push_back(c->Dim(cur, i));
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status UnpackShape(InferenceContext* c) {
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  if (c->RankKnown(s)) {
    int32_t axis;
    SF_RETURN_IF_ERROR(AxisForPackUnpack(c, c->Rank(s), &axis));
    DimensionHandle unused;
    SF_RETURN_IF_ERROR(
        c->WithValue(c->Dim(s, axis), c->num_outputs(), &unused));
    ShapeHandle before, after;
    SF_RETURN_IF_ERROR(c->Subshape(s, 0, axis, &before));
    SF_RETURN_IF_ERROR(c->Subshape(s, axis + 1, &after));
    SF_RETURN_IF_ERROR(c->Concatenate(before, after, &out));
  } else {
    out = c->UnknownShape();
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status SplitShape(InferenceContext* c) {
  ShapeHandle input = c->input(1);
  DimensionHandle split_dim;
  SF_RETURN_IF_ERROR(MakeDimForScalarInputWithNegativeIndexing(
      c, 0, c->Rank(input), &split_dim));
  const int num_split = c->num_outputs();
  ShapeHandle out;
  if (!c->ValueKnown(split_dim)) {
    out = c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                              : c->UnknownShape();
  } else {
    const int64_t d = c->Value(split_dim);
    SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, d + 1, &input));
    DimensionHandle size;
    absl::Status s = c->Divide(c->Dim(input, d), num_split, true, &size);
    if (!s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat(s.message(),
                       "\n\tNumber of ways to split should evenly divide the "
                       "split dimension"));
    }
    SF_RETURN_IF_ERROR(c->ReplaceDim(input, d, size, &out));
  }
  for (int i = 0; i < num_split; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status SplitVShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  DimensionHandle split_dim;
  SF_RETURN_IF_ERROR(MakeDimForScalarInputWithNegativeIndexing(
      c, 2, c->Rank(input), &split_dim));
  const int n = c->num_outputs();
  const int32_t rank = c->Rank(input);
  const Tensor* sizes = c->input_tensor(1);
  if (rank == kUnknownRank) return UnknownShape(c);
  if (rank == 0) return absl::InvalidArgumentError("Can't split scalars");
  if (sizes == nullptr) {
    for (int i = 0; i < n; ++i) {
      if (c->ValueKnown(split_dim)) {
        ShapeHandle out;
        SF_RETURN_IF_ERROR(
            c->ReplaceDim(input, c->Value(split_dim), c->UnknownDim(), &out));
        c->set_output(i, out);
      } else {
        c->set_output(i, c->UnknownShapeOfRank(rank));
      }
    }
    return absl::OkStatus();
  }
  if (!c->ValueKnown(split_dim)) {
    for (int i = 0; i < n; ++i) c->set_output(i, c->UnknownShapeOfRank(rank));
    return absl::OkStatus();
  }
  const int64_t d = c->Value(split_dim);
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, d + 1, &input));
  const std::vector<int64_t> data = FlatInt64(*sizes);
  if (static_cast<int>(data.size()) != n) {
    return absl::InvalidArgumentError(
        "Length of size_splits should be equal to num_outputs");
  }
  int64_t total = 0;
  bool has_neg_one = false;
  for (int64_t s : data) {
    if (s == -1) {
      if (has_neg_one) {
        return absl::InvalidArgumentError("size_splits can only have one -1");
      }
      has_neg_one = true;
    } else {
      total += s;
    }
  }
  const int64_t dim_size = c->Value(c->Dim(input, d));
  for (int i = 0; i < n; ++i) {
    int64_t size = data[i];
    if (size == -1 && dim_size != kUnknownDim) size = dim_size - total;
    if (size < -1 || (size == -1 && dim_size != kUnknownDim)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Split size at index ", i, " must be >= 0. Got: ", size));
    }
    ShapeHandle out;
    SF_RETURN_IF_ERROR(c->ReplaceDim(input, d, c->MakeDim(size), &out));
    c->set_output(i, out);
  }
  if (dim_size != kUnknownDim &&
      (has_neg_one ? total > dim_size : total != dim_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat("can't split axis of size ", dim_size,
                     " into pieces of size [", absl::StrJoin(data, ","), "]"));
  }
  return absl::OkStatus();
}

absl::Status TransposeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle perm_shape = c->input(1);
  const Tensor* perm = c->input_tensor(1);
  DimensionHandle perm_elems = c->NumElements(perm_shape);
  if (!c->RankKnown(input) && !c->ValueKnown(perm_elems) && perm == nullptr) {
    return UnknownShape(c);
  }
  int64_t rank;
  if (c->RankKnown(input)) {
    rank = c->Rank(input);
  } else if (c->ValueKnown(perm_elems)) {
    rank = c->Value(perm_elems);
  } else {
    rank = perm->NumElements();
  }
  if (!c->RankKnown(input) && rank < 2) {
    c->set_output(0, input);
    return absl::OkStatus();
  }
  SF_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  SF_RETURN_IF_ERROR(c->WithRank(perm_shape, 1, &perm_shape));
  SF_RETURN_IF_ERROR(c->WithValue(perm_elems, rank, &perm_elems));
  std::vector<DimensionHandle> dims(rank);
  if (perm != nullptr) {
    const std::vector<int64_t> p = FlatInt64(*perm);
    for (int64_t i = 0; i < rank; ++i) {
      if (p[i] >= rank || p[i] < -rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "perm dim ", p[i], " is out of range of input rank ", rank));
      }
      dims[i] = c->Dim(input, p[i]);
    }
  } else {
    for (auto& d : dims) d = c->UnknownDim();
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status ExpandDimsShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return absl::InvalidArgumentError(
        "'dim' input must be a tensor with a single value");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) return UnknownShape(c);
  int64_t dim;
  SF_RETURN_IF_ERROR(c->GetScalarFromTensor(dim_t, 0, &dim));
  const int32_t rank = c->Rank(input);
  const int32_t min_dim = -1 * rank - 1;
  if (dim < min_dim || dim > rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim ", dim, " not in the interval [", min_dim, ", ", rank, "]."));
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle before, after, out;
  SF_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &before));
  SF_RETURN_IF_ERROR(c->Subshape(input, dim, &after));
  SF_RETURN_IF_ERROR(c->Concatenate(before, c->Vector(1), &out));
  SF_RETURN_IF_ERROR(c->Concatenate(out, after, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status SqueezeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) return UnknownShape(c);
  const int32_t rank = c->Rank(input);
  std::vector<int64_t> squeeze_dims;
  SF_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::set<int64_t> wrapped;
  for (size_t i = 0; i < squeeze_dims.size(); ++i) {
    const int64_t d = squeeze_dims[i];
    if (d < -rank || d >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "squeeze_dims[", i, "] not in [", -rank, ",", rank, ")."));
    }
    wrapped.insert(d < 0 ? d + rank : d);
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    const bool is_explicit = wrapped.count(i) > 0;
    DimensionHandle dim = c->Dim(input, i);
    if (!c->ValueKnown(dim)) {
      if (is_explicit) continue;
      if (squeeze_dims.empty()) return UnknownShape(c);
    } else if (c->Value(dim) == 1) {
      if (is_explicit || squeeze_dims.empty()) continue;
    } else if (is_explicit) {
      return absl::InvalidArgumentError(
          absl::StrCat("Can not squeeze dim[", i,
                       "], expected a dimension of 1, got ", c->Value(dim)));
    }
    dims.push_back(dim);
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status FillShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const Tensor* t = c->input_tensor(0);
  if (t != nullptr && IsInt(t)) {
    for (int64_t v : FlatInt64(*t)) {
      if (v < 0) {
        return absl::InvalidArgumentError("Fill dimensions must be >= 0");
      }
    }
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status TileShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle multiples;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &multiples));
  if (c->RankKnown(input)) {
    SF_RETURN_IF_ERROR(c->WithRank(multiples, c->Rank(input), &multiples));
    ShapeHandle unused;
    SF_RETURN_IF_ERROR(
        c->Merge(c->input(1), c->Vector(c->Rank(input)), &unused));
  }
  if (!c->RankKnown(multiples)) return UnknownShape(c);
  const int32_t rank = c->Rank(multiples);
  SF_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    SF_RETURN_IF_ERROR(
        c->Multiply(c->Dim(input, i), c->Dim(multiples, i), &dims[i]));
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status PadShape(InferenceContext* c) {
  ShapeHandle paddings;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(paddings, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  DimensionHandle n_dim = c->Dim(paddings, 0);
  if (c->ValueKnown(n_dim)) {
    SF_RETURN_IF_ERROR(c->WithRank(input, c->Value(n_dim), &input));
  } else if (c->RankKnown(input)) {
    SF_RETURN_IF_ERROR(c->WithValue(n_dim, c->Rank(input), &n_dim));
  }
  const Tensor* pads = c->input_tensor(1);
  if (pads == nullptr) {
    c->set_output(0, c->ValueKnown(n_dim)
                         ? c->UnknownShapeOfRank(c->Value(n_dim))
                         : c->UnknownShape());
    return absl::OkStatus();
  }
  const int64_t num_dims = pads->shape().dim_size(0);
  SF_RETURN_IF_ERROR(c->WithRank(input, num_dims, &input));
  SF_RETURN_IF_ERROR(c->WithValue(n_dim, num_dims, &n_dim));
  const std::vector<int64_t> p = FlatInt64(*pads);
  std::vector<DimensionHandle> dims(num_dims);
  for (int64_t i = 0; i < num_dims; ++i) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0) {
      return absl::InvalidArgumentError("Paddings must be non-negative");
    }
    SF_RETURN_IF_ERROR(
        c->Add(c->Dim(input, i), p[2 * i] + p[2 * i + 1], &dims[i]));
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status OneHotShape(InferenceContext* c) {
  int32_t axis;
  SF_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return absl::InvalidArgumentError("axis must be >= -1");
  DimensionHandle depth;
  SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &depth));
  ShapeHandle indices = c->input(0);
  if (!c->RankKnown(indices)) return UnknownShape(c);
  const int32_t new_rank = c->Rank(indices) + 1;
  const int32_t depth_index = (axis + new_rank) % new_rank;
  ShapeHandle front, back, out;
  SF_RETURN_IF_ERROR(c->Subshape(indices, 0, depth_index, &front));
  SF_RETURN_IF_ERROR(c->Subshape(indices, depth_index, &back));
  SF_RETURN_IF_ERROR(c->Concatenate(front, c->Vector(depth), &front));
  SF_RETURN_IF_ERROR(c->Concatenate(front, back, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status GatherShape(InferenceContext* c) {
  ShapeHandle params, params_rest, out;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  SF_RETURN_IF_ERROR(c->Subshape(params, 1, &params_rest));
  SF_RETURN_IF_ERROR(c->Concatenate(c->input(1), params_rest, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status GatherV2Shape(InferenceContext* c) {
  ShapeHandle params, unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  ShapeHandle indices = c->input(1);
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  int32_t batch_dims = 0;
  if (c->GetAttr("batch_dims") != nullptr) {
    SF_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  }
  const Tensor* axis_t = c->input_tensor(2);
  if (axis_t == nullptr) {
    if (c->RankKnown(params) && c->RankKnown(indices)) {
      c->set_output(
          0, c->UnknownShapeOfRank(c->Rank(params) + c->Rank(indices) - 1 -
                                   batch_dims));
    } else {
      c->set_output(0, c->UnknownShape());
    }
    return absl::OkStatus();
  }
  int64_t axis;
  SF_RETURN_IF_ERROR(c->GetScalarFromTensor(axis_t, &axis));
  SF_RETURN_IF_ERROR(
      c->WithRankAtLeast(params, axis < 0 ? -axis : axis + 1, &unused));
  SF_RETURN_IF_ERROR(
      c->WithRankAtLeast(indices, std::abs(batch_dims), &unused));
  if (batch_dims < 0) batch_dims += c->Rank(indices);
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(params, batch_dims + 1, &unused));
  ShapeHandle outer, inner, out;
  SF_RETURN_IF_ERROR(c->Subshape(params, 0, axis, &outer));
  SF_RETURN_IF_ERROR(c->Subshape(indices, batch_dims, &inner));
  SF_RETURN_IF_ERROR(c->Concatenate(outer, inner, &out));
  if (axis != -1) {
    ShapeHandle rest;
    SF_RETURN_IF_ERROR(c->Subshape(params, axis + 1, &rest));
    SF_RETURN_IF_ERROR(c->Concatenate(out, rest, &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BroadcastToShape(InferenceContext* c) {
  ShapeHandle shape_in;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &shape_in));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  ShapeHandle in = c->input(0);
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return absl::OkStatus();
  }
  const int out_rank = c->Rank(out);
  SF_RETURN_IF_ERROR(c->WithRankAtMost(in, out_rank, &in));
  const int in_rank = c->Rank(in);
  for (int i = 0; i < in_rank; ++i) {
    DimensionHandle in_dim = c->Dim(in, in_rank - i - 1);
    if (c->Value(in_dim) > 1) {
      DimensionHandle out_dim = c->Dim(out, out_rank - i - 1);
      SF_RETURN_IF_ERROR(c->Merge(in_dim, out_dim, &out_dim));
      SF_RETURN_IF_ERROR(c->ReplaceDim(out, out_rank - i - 1, out_dim, &out));
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status RangeShape(InferenceContext* c) {
  ShapeHandle unused;
  static const char* const kNames[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    absl::Status s = c->WithRank(c->input(i), 0, &unused);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat(s.message(), "\n\tfor '", kNames[i], "'"));
    }
  }
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    c->set_output(0, c->Vector(kUnknownDim));
    return absl::OkStatus();
  }
  auto value = [](const Tensor* t) -> double {
    switch (t->dtype()) {
      case DT_INT32:
        return t->flat<int32_t>()(0);
      case DT_INT64:
        return static_cast<double>(t->flat<int64_t>()(0));
      case DT_FLOAT:
        return t->flat<float>()(0);
      case DT_DOUBLE:
        return t->flat<double>()(0);
      default:
        return 0;
    }
  };
  const double s = value(start), l = value(limit), d = value(delta);
  if (d == 0) return absl::InvalidArgumentError("Requires delta != 0");
  if (d > 0 && s > l) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requires start <= limit when delta > 0: ", s, "/", l));
  }
  if (d < 0 && s < l) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requires start >= limit when delta < 0: ", s, "/", l));
  }
  int64_t size;
  if (start->dtype() == DT_INT32 || start->dtype() == DT_INT64) {
    const int64_t si = static_cast<int64_t>(s), li = static_cast<int64_t>(l),
                  di = static_cast<int64_t>(d);
    size = (std::abs(li - si) + std::abs(di) - 1) / std::abs(di);
  } else {
    size = static_cast<int64_t>(std::ceil(std::abs((l - s) / d)));
  }
  c->set_output(0, c->Vector(size));
  return absl::OkStatus();
}

absl::Status WhereShape(InferenceContext* c) {
  c->set_output(0, c->Matrix(c->UnknownDim(), c->Rank(c->input(0))));
  return absl::OkStatus();
}

absl::Status UniqueShape(InferenceContext* c) {
  c->set_output(0, c->Vector(kUnknownDim));
  c->set_output(1, c->input(0));
  ShapeHandle unused;
  return c->WithRank(c->input(0), 1, &unused);
}

absl::Status TopKV2Shape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  DimensionHandle k;
  if (c->num_inputs() >= 2) {
    SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &k));
  } else {
    int32_t kv;
    SF_RETURN_IF_ERROR(c->GetAttr("k", &kv));
    if (kv < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", kv));
    }
    k = c->MakeDim(kv);
  }
  DimensionHandle last = c->Dim(input, -1);
  if (c->ValueKnown(last) && c->ValueKnown(k) && c->Value(last) < c->Value(k)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have last dimension >= k = ", c->Value(k),
                     " but is ", c->Value(last)));
  }
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &s));
  SF_RETURN_IF_ERROR(c->Concatenate(s, c->Vector(k), &s));
  c->set_output(0, s);
  c->set_output(1, s);
  return absl::OkStatus();
}

absl::Status ConcatOffsetShape(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs() && i - 1 < c->num_outputs(); ++i) {
    c->set_output(i - 1, c->input(i));
  }
  return absl::OkStatus();
}

absl::Status ShapeFromInputTensorRank4(InferenceContext* c, int input) {
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(input, &s));
  SF_RETURN_IF_ERROR(c->WithRank(s, 4, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status StridedSliceGradShape(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ResizeShape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  return SetOutputToSizedImage(c, c->Dim(input, 0), 1, c->Dim(input, 3));
}

absl::Status LSTMBlockCellShape(InferenceContext* c) {
  ShapeHandle x, cs_prev;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &cs_prev));
  ShapeHandle out = c->Matrix(c->Dim(x, 0), c->Dim(cs_prev, 1));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status LSTMBlockCellGradShape(InferenceContext* c) {
  ShapeHandle x, cs_prev;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &cs_prev));
  DimensionHandle batch = c->Dim(x, 0), cell = c->Dim(cs_prev, 1), cell4;
  SF_RETURN_IF_ERROR(c->Multiply(cell, 4, &cell4));
  c->set_output(0, c->Matrix(batch, cell));
  c->set_output(1, c->Matrix(batch, cell4));
  for (int i = 2; i < c->num_outputs(); ++i) c->set_output(i, c->Vector(cell));
  return absl::OkStatus();
}

absl::Status BlockLSTMShape(InferenceContext* c) {
  ShapeHandle x, b;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, &x));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(c->num_inputs() - 1), 1, &b));
  DimensionHandle cell;
  SF_RETURN_IF_ERROR(c->Divide(c->Dim(b, 0), 4, true, &cell));
  ShapeHandle out = c->MakeShape({c->Dim(x, 0), c->Dim(x, 1), cell});
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status GRUBlockCellShape(InferenceContext* c) {
  ShapeHandle x, h_prev;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &h_prev));
  ShapeHandle out = c->Matrix(c->Dim(x, 0), c->Dim(h_prev, 1));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status EnterShape(InferenceContext* c) {
  c->set_output(0, c->UnknownShape());
  const auto* handle = c->input_handle_shapes_and_types(0);
  if (handle != nullptr) c->set_output_handle_shapes_and_types(0, *handle);
  bool is_constant = false;
  SF_RETURN_IF_ERROR(c->GetAttr("is_constant", &is_constant));
  if (is_constant) c->set_output(0, c->input(0));
  return absl::OkStatus();
}

namespace {

// Sets the outputs from the "output_shapes" attr; false when it is empty.
absl::Status OutputShapesAttr(InferenceContext* c, bool* set) {
  std::vector<TensorShapeProto> shapes;
  SF_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  *set = !shapes.empty();
  if (shapes.empty()) return absl::OkStatus();
  if (static_cast<int>(shapes.size()) != c->num_outputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("`output_shapes` must be the same length as num outputs (",
                     shapes.size(), " vs. ", c->num_outputs()));
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    ShapeHandle s;
    SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(shapes[i], &s));
    c->set_output(i, s);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status IfShape(InferenceContext* c) {
  bool set;
  SF_RETURN_IF_ERROR(OutputShapesAttr(c, &set));
  return set ? absl::OkStatus() : UnknownShape(c);
}

absl::Status WhileShape(InferenceContext* c) {
  bool set;
  SF_RETURN_IF_ERROR(OutputShapesAttr(c, &set));
  if (set) return absl::OkStatus();
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
    c->set_output(i, c->input(i));
  }
  return absl::OkStatus();
}

absl::Status SwitchShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  ShapeHandle out = c->input(0);
  c->set_output(0, out);
  c->set_output(1, out);
  const auto* handle = c->input_handle_shapes_and_types(0);
  if (handle != nullptr) {
    c->set_output_handle_shapes_and_types(0, *handle);
    c->set_output_handle_shapes_and_types(1, *handle);
  }
  return absl::OkStatus();
}

absl::Status MergeShape(InferenceContext* c) {
  ShapeHandle out = c->input(0);
  if (!c->RankKnown(out)) {
    out = c->UnknownShape();
  } else {
    const int32_t rank = c->Rank(out);
    for (int i = 1; i < c->num_inputs(); ++i) {
      ShapeHandle in = c->input(i);
      if (!c->RankKnown(in) || c->Rank(in) != rank) {
        out = c->UnknownShape();
        break;
      }
      for (int d = 0; d < rank; ++d) {
        if (c->Value(c->Dim(in, d)) != c->Value(c->Dim(out, d))) {
          SF_RETURN_IF_ERROR(c->ReplaceDim(out, d, c->UnknownDim(), &out));
        }
      }
    }
  }
  c->set_output(0, out);
  c->set_output(1, c->Scalar());
  return absl::OkStatus();
}

absl::Status SelectShape(InferenceContext* c) {
  ShapeHandle data = c->input(1);
  SF_RETURN_IF_ERROR(c->Merge(data, c->input(2), &data));
  ShapeHandle cond = c->input(0);
  if (!c->RankKnown(cond) || !c->RankKnown(data)) {
    c->set_output(0, data);
    return absl::OkStatus();
  }
  const int32_t cond_rank = c->Rank(cond), data_rank = c->Rank(data);
  if (cond_rank == 0) {
    c->set_output(0, data);
    return absl::OkStatus();
  }
  if (cond_rank != 1 || data_rank == 0) {
    SF_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return absl::OkStatus();
  }
  SF_RETURN_IF_ERROR(c->Merge(cond, c->Vector(c->Dim(data, 0)), &cond));
  c->set_output(0, data);
  return absl::OkStatus();
}

absl::Status SelectV2Shape(InferenceContext* c) {
  ShapeHandle other, out;
  SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(1), c->input(2), true, &other));
  SF_RETURN_IF_ERROR(
      BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), other, true, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status EqualShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  if (c->GetAttr("incompatible_shape_error") != nullptr) {
    SF_RETURN_IF_ERROR(
        c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  }
  ShapeHandle out;
  SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), incompatible_shape_error, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status SoftmaxShape(InferenceContext* c) {
  return UnchangedShapeWithRankAtLeast(c, 1);
}

absl::Status SoftmaxCrossEntropyWithLogitsShape(InferenceContext* c) {
  ShapeHandle input;
  if (c->WithRank(c->input(0), 2, &input).ok() &&
      c->Merge(input, c->input(1), &input).ok()) {
    c->set_output(0, c->Vector(c->Dim(input, 0)));
    c->set_output(1, input);
    return absl::OkStatus();
  }
  SF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFn(c, 1));
  if (!c->RankKnown(c->output(1))) {
    return absl::InvalidArgumentError(
        "Shape must be broadcasted with rank 2, but is rank is unknown.");
  }
  if (c->Rank(c->output(1)) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape must be broadcasted with rank 2, but is rank ",
                     c->Rank(c->output(1))));
  }
  c->set_output(0, c->Vector(c->Dim(c->output(1), 0)));
  return absl::OkStatus();
}

absl::Status SparseSoftmaxCrossEntropyWithLogitsShape(InferenceContext* c) {
  ShapeHandle features, labels;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &features));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &labels));
  DimensionHandle batch;
  SF_RETURN_IF_ERROR(c->Merge(c->Dim(features, 0), c->Dim(labels, 0), &batch));
  SF_RETURN_IF_ERROR(c->ReplaceDim(features, 0, batch, &features));
  c->set_output(0, c->Vector(batch));
  c->set_output(1, features);
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgsShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  c->set_output(0, c->Vector(kUnknownDim));
  c->set_output(1, c->Vector(kUnknownDim));
  return absl::OkStatus();
}

absl::Status Conv2DBackpropInputShape(InferenceContext* c) {
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &s));
  SF_RETURN_IF_ERROR(c->WithRank(s, 4, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status Conv2DBackpropFilterShape(InferenceContext* c) {
  ShapeHandle s;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &s));
  SF_RETURN_IF_ERROR(c->WithRank(s, 4, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
