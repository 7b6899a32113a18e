#include "runtime/framework/shape_inference.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {

ShapeHandle ShapeManager::MakeShape(std::vector<DimensionHandle> dims) {
  shapes_.emplace_back(std::move(dims));
  return ShapeHandle(&shapes_.back());
}

ShapeHandle ShapeManager::UnknownShape() {
  shapes_.emplace_back();
  return ShapeHandle(&shapes_.back());
}

DimensionHandle ShapeManager::MakeDim(int64_t value) {
  dims_.emplace_back(value);
  return DimensionHandle(&dims_.back());
}

InferenceContext::InferenceContext(const NodeDef* node_def, const OpDef* op_def,
                                   absl::Span<const ShapeHandle> input_shapes,
                                   int num_outputs, ShapeManager* manager,
                                   ConstantSource* constants)
    : node_def_(node_def),
      op_def_(op_def),
      manager_(manager),
      constants_(constants),
      inputs_(input_shapes.begin(), input_shapes.end()),
      outputs_(num_outputs) {
  for (ShapeHandle& s : inputs_) {
    if (!s.IsSet()) s = manager_->UnknownShape();
  }
}

absl::Status InferenceContext::AttachContext(const absl::Status& status) const {
  std::vector<std::string> shapes;
  shapes.reserve(inputs_.size());
  for (ShapeHandle s : inputs_) shapes.push_back(DebugString(s));
  std::string context =
      absl::StrCat(" for '", SummarizeNodeDef(*node_def_),
                   "' with input shapes: ", absl::StrJoin(shapes, ", "));
  std::vector<std::string> as_tensors, as_shapes;
  for (int i = 0; i < static_cast<int>(requested_shapes_.size()); ++i) {
    if (requested_shapes_[i].IsSet() && RankKnown(requested_shapes_[i])) {
      as_shapes.push_back(
          absl::StrCat("input[", i, "] = ", DebugString(requested_shapes_[i])));
    } else if (requested_tensors_[i] != nullptr) {
      as_tensors.push_back(
          absl::StrCat("input[", i, "] = <",
                       requested_tensors_[i]->SummarizeValue(256), ">"));
    }
  }
  if (!as_tensors.empty()) {
    absl::StrAppend(&context, " and with computed input tensors: ",
                    absl::StrJoin(as_tensors, ", "));
  }
  if (!as_shapes.empty()) {
    absl::StrAppend(&context,
                    " and with input tensors computed as partial shapes: ",
                    absl::StrJoin(as_shapes, ","));
  }
  return absl::Status(status.code(),
                      absl::StrCat(status.message(), context, "."));
}

absl::Status InferenceContext::ArgRange(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    absl::string_view name, int* start, int* stop) const {
  int pos = 0;
  for (const OpDef::ArgDef& arg : args) {
    int n = 1;
    if (!arg.number_attr().empty()) {
      int64_t v = 0;
      SF_RETURN_IF_ERROR(GetAttr(arg.number_attr(), &v));
      n = static_cast<int>(v);
    } else if (!arg.type_list_attr().empty()) {
      const AttrValue* v = GetAttr(arg.type_list_attr());
      n = v == nullptr ? 0 : v->list().type_size();
    }
    if (arg.name() == name) {
      *start = pos;
      *stop = pos + n;
      return absl::OkStatus();
    }
    pos += n;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown argument name '", name, "' of op ", op_def_->name()));
}

absl::Status InferenceContext::input_range(absl::string_view name, int* start,
                                           int* stop) const {
  return ArgRange(op_def_->input_arg(), name, start, stop);
}

absl::Status InferenceContext::output_range(absl::string_view name, int* start,
                                            int* stop) const {
  return ArgRange(op_def_->output_arg(), name, start, stop);
}

absl::Status InferenceContext::input(absl::string_view name,
                                     std::vector<ShapeHandle>* out) const {
  int start, stop;
  SF_RETURN_IF_ERROR(input_range(name, &start, &stop));
  out->assign(inputs_.begin() + std::min(start, num_inputs()),
              inputs_.begin() + std::min(stop, num_inputs()));
  return absl::OkStatus();
}

absl::Status InferenceContext::set_output(
    absl::string_view name, const std::vector<ShapeHandle>& shapes) {
  int start, stop;
  SF_RETURN_IF_ERROR(output_range(name, &start, &stop));
  if (stop - start != static_cast<int>(shapes.size()) || stop > num_outputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Must have exactly ", shapes.size(), " shapes."));
  }
  for (int i = start; i < stop; ++i) outputs_[i] = shapes[i - start];
  return absl::OkStatus();
}

const Tensor* InferenceContext::input_tensor(int idx) {
  if (constants_ == nullptr || idx < 0 || idx >= num_inputs()) return nullptr;
  const Tensor* t = constants_->InputTensor(idx);
  if (requested_tensors_.size() < inputs_.size()) {
    requested_tensors_.resize(inputs_.size(), nullptr);
    requested_shapes_.resize(inputs_.size());
  }
  requested_tensors_[idx] = t;
  return t;
}

const std::vector<ShapeAndType>*
InferenceContext::input_handle_shapes_and_types(int idx) const {
  if (idx >= static_cast<int>(input_handle_set_.size()) ||
      !input_handle_set_[idx]) {
    return nullptr;
  }
  return &input_handle_data_[idx];
}

void InferenceContext::set_input_handle_shapes_and_types(
    int idx, std::vector<ShapeAndType> v) {
  if (input_handle_set_.empty()) {
    input_handle_set_.resize(inputs_.size());
    input_handle_data_.resize(inputs_.size());
  }
  input_handle_set_[idx] = true;
  input_handle_data_[idx] = std::move(v);
}

const std::vector<ShapeAndType>*
InferenceContext::output_handle_shapes_and_types(int idx) const {
  if (idx >= static_cast<int>(output_handle_set_.size()) ||
      !output_handle_set_[idx]) {
    return nullptr;
  }
  return &output_handle_data_[idx];
}

void InferenceContext::set_output_handle_shapes_and_types(
    int idx, std::vector<ShapeAndType> v) {
  if (output_handle_set_.empty()) {
    output_handle_set_.resize(outputs_.size());
    output_handle_data_.resize(outputs_.size());
  }
  output_handle_set_[idx] = true;
  output_handle_data_[idx] = std::move(v);
}

const AttrValue* InferenceContext::GetAttr(absl::string_view name) const {
  const AttrValue* v = FindNodeAttr(*node_def_, name);
  if (v != nullptr) return v;
  for (const auto& attr : op_def_->attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      return &attr.default_value();
    }
  }
  return nullptr;
}

namespace {

absl::Status MissingAttr(const NodeDef& def, absl::string_view name) {
  return absl::InvalidArgumentError(absl::StrCat(
      "No attr named '", name, "' in NodeDef: ", SummarizeNodeDef(def)));
}

absl::Status WrongKind(absl::string_view name, absl::string_view kind) {
  return absl::InvalidArgumentError(
      absl::StrCat("Attr '", name, "' is not of kind ", kind));
}

}  // namespace

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       int64_t* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kI) return WrongKind(name, "int");
  *value = v->i();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       int32_t* value) const {
  int64_t v;
  SF_RETURN_IF_ERROR(GetAttr(name, &v));
  *value = static_cast<int32_t>(v);
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       float* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kF) return WrongKind(name, "float");
  *value = v->f();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       bool* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kB) return WrongKind(name, "bool");
  *value = v->b();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       DataType* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kType) return WrongKind(name, "type");
  *value = v->type();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::string* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kS) return WrongKind(name, "string");
  *value = v->s();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       TensorShapeProto* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kShape) return WrongKind(name, "shape");
  *value = v->shape();
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<int64_t>* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kList) return WrongKind(name, "list(int)");
  value->assign(v->list().i().begin(), v->list().i().end());
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<int32_t>* value) const {
  std::vector<int64_t> v;
  SF_RETURN_IF_ERROR(GetAttr(name, &v));
  value->assign(v.begin(), v.end());
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<DataType>* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kList) {
    return WrongKind(name, "list(type)");
  }
  value->clear();
  for (int t : v->list().type()) value->push_back(static_cast<DataType>(t));
  return absl::OkStatus();
}

template <>
absl::Status InferenceContext::GetAttr(
    absl::string_view name, std::vector<TensorShapeProto>* value) const {
  const AttrValue* v = GetAttr(name);
  if (v == nullptr) return MissingAttr(*node_def_, name);
  if (v->value_case() != AttrValue::kList) {
    return WrongKind(name, "list(shape)");
  }
  value->assign(v->list().shape().begin(), v->list().shape().end());
  return absl::OkStatus();
}

DimensionHandle InferenceContext::Dim(ShapeHandle s, int64_t idx) {
  if (!RankKnown(s)) return UnknownDim();
  const int64_t rank = s->rank_;
  if (idx < 0) idx += rank;
  if (idx < 0 || idx >= rank) return UnknownDim();
  return s->dims_[idx];
}

bool InferenceContext::FullyDefined(ShapeHandle s) {
  if (!RankKnown(s)) return false;
  for (DimensionHandle d : s->dims_) {
    if (!ValueKnown(d)) return false;
  }
  return true;
}

DimensionHandle InferenceContext::NumElements(ShapeHandle s) {
  if (!RankKnown(s)) return UnknownDim();
  int64_t n = 1;
  for (DimensionHandle d : s->dims_) {
    if (!ValueKnown(d)) return UnknownDim();
    n *= Value(d);
  }
  return MakeDim(n);
}

std::string InferenceContext::DebugString(ShapeHandle s) const {
  if (!RankKnown(s)) return "?";
  std::string out = "[";
  for (size_t i = 0; i < s->dims_.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",", DebugString(s->dims_[i]));
  }
  return out + "]";
}

std::string InferenceContext::DebugString(DimensionHandle d) const {
  return ValueKnown(d) ? absl::StrCat(Value(d)) : "?";
}

absl::Status InferenceContext::WithRank(ShapeHandle shape, int64_t rank,
                                        ShapeHandle* out) {
  if (rank > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("Rank cannot exceed kint32max");
  }
  if (!RankKnown(shape)) {
    *out = UnknownShapeOfRank(rank);
    return absl::OkStatus();
  }
  if (Rank(shape) == rank) {
    *out = shape;
    return absl::OkStatus();
  }
  *out = ShapeHandle();
  return absl::InvalidArgumentError(
      absl::StrCat("Shape must be rank ", rank, " but is rank ", Rank(shape)));
}

absl::Status InferenceContext::WithRankAtLeast(ShapeHandle shape, int64_t rank,
                                               ShapeHandle* out) {
  if (!RankKnown(shape) || Rank(shape) >= rank) {
    *out = shape;
    return absl::OkStatus();
  }
  *out = ShapeHandle();
  return absl::InvalidArgumentError(absl::StrCat(
      "Shape must be at least rank ", rank, " but is rank ", Rank(shape)));
}

absl::Status InferenceContext::WithRankAtMost(ShapeHandle shape, int64_t rank,
                                              ShapeHandle* out) {
  if (!RankKnown(shape) || Rank(shape) <= rank) {
    *out = shape;
    return absl::OkStatus();
  }
  *out = ShapeHandle();
  return absl::InvalidArgumentError(absl::StrCat(
      "Shape must be at most rank ", rank, " but is rank ", Rank(shape)));
}

absl::Status InferenceContext::WithValue(DimensionHandle dim, int64_t value,
                                         DimensionHandle* out) {
  if (!ValueKnown(dim)) {
    *out = MakeDim(value);
    return absl::OkStatus();
  }
  if (Value(dim) == value) {
    *out = dim;
    return absl::OkStatus();
  }
  *out = DimensionHandle();
  return absl::InvalidArgumentError(
      absl::StrCat("Dimension must be ", value, " but is ", Value(dim)));
}

absl::Status InferenceContext::Merge(DimensionHandle d0, DimensionHandle d1,
                                     DimensionHandle* out) {
  if (d0.SameHandle(d1) || !ValueKnown(d1)) {
    *out = d0;
    return absl::OkStatus();
  }
  if (!ValueKnown(d0) || Value(d0) == Value(d1)) {
    *out = d1;
    return absl::OkStatus();
  }
  *out = DimensionHandle();
  return absl::InvalidArgumentError(absl::StrCat(
      "Dimensions must be equal, but are ", Value(d0), " and ", Value(d1)));
}

absl::Status InferenceContext::Merge(ShapeHandle s0, ShapeHandle s1,
                                     ShapeHandle* out) {
  if (s0.SameHandle(s1) || !RankKnown(s1)) {
    *out = s0;
    return absl::OkStatus();
  }
  if (!RankKnown(s0)) {
    *out = s1;
    return absl::OkStatus();
  }
  const int32_t rank = Rank(s0);
  if (rank != Rank(s1)) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(absl::StrCat(
        "Shapes must be equal rank, but are ", rank, " and ", Rank(s1)));
  }
  bool s0_covers = true, s1_covers = true;
  for (int i = 0; i < rank; ++i) {
    DimensionHandle a = s0->dims_[i], b = s1->dims_[i];
    if (a.SameHandle(b)) continue;
    if (ValueKnown(a) && ValueKnown(b)) {
      if (Value(a) != Value(b)) {
        *out = ShapeHandle();
        return absl::InvalidArgumentError(absl::StrCat(
            "Dimension ", i, " in both shapes must be equal, but are ",
            Value(a), " and ", Value(b), ". Shapes are ", DebugString(s0),
            " and ", DebugString(s1), "."));
      }
      continue;
    }
    if (!ValueKnown(a)) s0_covers = false;
    if (!ValueKnown(b)) s1_covers = false;
  }
  if (s0_covers) {
    *out = s0;
    return absl::OkStatus();
  }
  if (s1_covers) {
    *out = s1;
    return absl::OkStatus();
  }
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    SF_RETURN_IF_ERROR(Merge(s0->dims_[i], s1->dims_[i], &dims[i]));
  }
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::MergePrefix(ShapeHandle s, ShapeHandle prefix,
                                           ShapeHandle* s_out,
                                           ShapeHandle* prefix_out) {
  *s_out = *prefix_out = ShapeHandle();
  if (!RankKnown(prefix) || !RankKnown(s)) {
    *s_out = s;
    *prefix_out = prefix;
    return absl::OkStatus();
  }
  const int32_t rank = Rank(prefix);
  SF_RETURN_IF_ERROR(WithRankAtLeast(s, rank, &s));
  std::vector<DimensionHandle> dims(s->dims_.begin(), s->dims_.end());
  for (int i = 0; i < rank; ++i) {
    SF_RETURN_IF_ERROR(Merge(s->dims_[i], prefix->dims_[i], &dims[i]));
  }
  *prefix_out = MakeShape(
      std::vector<DimensionHandle>(dims.begin(), dims.begin() + rank));
  *s_out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

bool InferenceContext::Compatible(ShapeHandle s0, ShapeHandle s1) const {
  if (!RankKnown(s0) || !RankKnown(s1)) return true;
  if (Rank(s0) != Rank(s1)) return false;
  for (int i = 0; i < Rank(s0); ++i) {
    const int64_t a = Value(s0->dims_[i]), b = Value(s1->dims_[i]);
    if (a >= 0 && b >= 0 && a != b) return false;
  }
  return true;
}

absl::Status InferenceContext::Subshape(ShapeHandle s, int64_t start,
                                        ShapeHandle* out) {
  return Subshape(s, start, std::numeric_limits<int64_t>::max(), 1, out);
}

absl::Status InferenceContext::Subshape(ShapeHandle s, int64_t start,
                                        int64_t end, ShapeHandle* out) {
  return Subshape(s, start, end, 1, out);
}

absl::Status InferenceContext::Subshape(ShapeHandle s, int64_t start,
                                        int64_t end, int64_t stride,
                                        ShapeHandle* out) {
  const int64_t start_in = start, end_in = end;
  if (!RankKnown(s)) {
    *out = UnknownShape();
    return absl::OkStatus();
  }
  const int64_t rank = Rank(s);
  if (start == 0 && stride == 1 && end >= rank) {
    *out = s;
    return absl::OkStatus();
  }
  if (stride == 0) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError("Subshape stride cannot be 0");
  }
  if (start > rank) start = rank;
  if (end > rank) end = rank;
  if (stride < 0 && start == rank) --start;
  if (start < 0) {
    start += rank;
    if (start < 0) {
      *out = ShapeHandle();
      return absl::InvalidArgumentError(
          absl::StrCat("Subshape start out of bounds: ", start_in,
                       ", for shape with rank ", rank));
    }
  }
  if (end < 0) {
    end += rank;
    if (end < 0) {
      *out = ShapeHandle();
      return absl::InvalidArgumentError(
          absl::StrCat("Subshape end out of bounds: ", end_in,
                       ", for shape with rank ", rank));
    }
  }
  if (stride > 0 && start > end) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(
        absl::StrCat("Subshape must have computed start <= end, but is ", start,
                     " and ", end, " (computed from start ", start_in,
                     " and end ", end_in, " over shape with rank ", rank, ")"));
  }
  if (stride < 0 && start < end) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(absl::StrCat(
        "Subshape must have computed start >= end since stride is negative, "
        "but is ",
        start, " and ", end, " (computed from start ", start_in, " and end ",
        end_in, " over shape with rank ", rank, " and stride", stride, ")"));
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = start; stride > 0 ? i < end : i > end; i += stride) {
    dims.push_back(s->dims_[i]);
  }
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::Concatenate(ShapeHandle s1, ShapeHandle s2,
                                           ShapeHandle* out) {
  if (!RankKnown(s1) || !RankKnown(s2)) {
    *out = UnknownShape();
    return absl::OkStatus();
  }
  std::vector<DimensionHandle> dims(s1->dims_.begin(), s1->dims_.end());
  dims.insert(dims.end(), s2->dims_.begin(), s2->dims_.end());
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::ReplaceDim(ShapeHandle s, int64_t dim_index,
                                          DimensionHandle new_dim,
                                          ShapeHandle* out) {
  if (!RankKnown(s)) {
    *out = UnknownShape();
    return absl::OkStatus();
  }
  const int64_t rank = Rank(s);
  const int64_t in = dim_index;
  if (dim_index < 0) dim_index += rank;
  if (dim_index < 0 || dim_index >= rank) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(absl::StrCat("Out of range dim_index ",
                                                   in, " for shape with ", rank,
                                                   " dimensions"));
  }
  std::vector<DimensionHandle> dims(s->dims_.begin(), s->dims_.end());
  dims[dim_index] = new_dim;
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

ShapeHandle InferenceContext::MakeShape(std::vector<DimensionHandle> dims) {
  return manager_->MakeShape(std::move(dims));
}

ShapeHandle InferenceContext::MakeShape(
    std::initializer_list<DimensionOrConstant> dims) {
  std::vector<DimensionHandle> out;
  out.reserve(dims.size());
  for (const DimensionOrConstant& d : dims) out.push_back(MakeDim(d));
  return MakeShape(std::move(out));
}

ShapeHandle InferenceContext::UnknownShape() {
  return manager_->UnknownShape();
}

ShapeHandle InferenceContext::UnknownShapeOfRank(int64_t rank) {
  std::vector<DimensionHandle> dims(rank);
  for (DimensionHandle& d : dims) d = UnknownDim();
  return MakeShape(std::move(dims));
}

ShapeHandle InferenceContext::Scalar() { return MakeShape({}); }

ShapeHandle InferenceContext::Vector(DimensionOrConstant dim) {
  return MakeShape({dim});
}

ShapeHandle InferenceContext::Matrix(DimensionOrConstant dim1,
                                     DimensionOrConstant dim2) {
  return MakeShape({dim1, dim2});
}

DimensionHandle InferenceContext::MakeDim(DimensionOrConstant d) {
  if (d.dim.IsSet()) return d.dim;
  return manager_->MakeDim(d.val < 0 ? kUnknownDim : d.val);
}

DimensionHandle InferenceContext::UnknownDim() {
  return manager_->MakeDim(kUnknownDim);
}

absl::Status InferenceContext::MakeShapeFromShapeProto(
    const TensorShapeProto& proto, ShapeHandle* out) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError(
          "An unknown shape must not have any dimensions set.");
    }
    *out = UnknownShape();
    return absl::OkStatus();
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape ", proto.ShortDebugString(),
                       " has dimensions with values "
                       "below -1 (where -1 means unknown)"));
    }
    dims.push_back(MakeDim(d.size()));
  }
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::MakeShapeFromPartialTensorShape(
    const PartialTensorShape& partial, ShapeHandle* out) {
  if (partial.unknown_rank()) {
    *out = UnknownShape();
    return absl::OkStatus();
  }
  std::vector<DimensionHandle> dims(partial.dims());
  for (int i = 0; i < partial.dims(); ++i) {
    dims[i] = MakeDim(partial.dim_size(i));
  }
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::MakeShapeFromTensorShape(
    const TensorShape& shape, ShapeHandle* out) {
  std::vector<DimensionHandle> dims(shape.dims());
  for (int i = 0; i < shape.dims(); ++i) dims[i] = MakeDim(shape.dim_size(i));
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::MakeShapeFromShapeTensor(int idx,
                                                        ShapeHandle* out) {
  return ShapeTensorToShape(idx, /*scalar_is_unknown=*/false, out);
}

absl::Status
InferenceContext::MakeShapeFromShapeTensorTreatScalarAsUnknownShape(
    int idx, ShapeHandle* out) {
  return ShapeTensorToShape(idx, /*scalar_is_unknown=*/true, out);
}

absl::Status InferenceContext::ShapeTensorToShape(int idx,
                                                  bool scalar_is_unknown,
                                                  ShapeHandle* out) {
  ShapeHandle input_shape;
  SF_RETURN_IF_ERROR(WithRankAtMost(input(idx), 1, &input_shape));
  if (scalar_is_unknown && Rank(input_shape) == 0) {
    *out = UnknownShape();
    return absl::OkStatus();
  }
  if (constants_ != nullptr) {
    ShapeHandle partial = constants_->InputTensorAsShape(idx);
    if (requested_shapes_.size() < inputs_.size()) {
      requested_tensors_.resize(inputs_.size(), nullptr);
      requested_shapes_.resize(inputs_.size());
    }
    requested_shapes_[idx] = partial;
    if (partial.IsSet() && RankKnown(partial)) {
      *out = partial;
      return absl::OkStatus();
    }
  }
  return MakeShapeFromTensor(input_tensor(idx), input_shape, out);
}

absl::Status InferenceContext::MakeShapeFromTensor(const Tensor* t,
                                                   ShapeHandle tensor_shape,
                                                   ShapeHandle* out) {
  if (t == nullptr) {
    if (Rank(tensor_shape) == 0) {
      *out = UnknownShape();
      return absl::OkStatus();
    }
    DimensionHandle n = Dim(tensor_shape, 0);
    *out = ValueKnown(n) ? UnknownShapeOfRank(Value(n)) : UnknownShape();
    return absl::OkStatus();
  }
  if (t->dtype() != DT_INT32 && t->dtype() != DT_INT64) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor must be int32 or int64, but was ",
                     DataTypeString(t->dtype())));
  }
  if (t->dims() == 0) {
    int64_t v;
    SF_RETURN_IF_ERROR(GetScalarFromTensor(t, &v));
    if (v != -1) {
      *out = ShapeHandle();
      return absl::InvalidArgumentError(absl::StrCat(
          "Input tensor must be rank 1, or if its rank 0 it must have value "
          "-1 (representing an unknown shape).  Saw value: ",
          v));
    }
    *out = UnknownShape();
    return absl::OkStatus();
  }
  if (t->dims() != 1) {
    *out = ShapeHandle();
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor must be rank 1, but was rank ", t->dims(),
                     ". Saw tensor shape ", t->shape().DebugString()));
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(t->NumElements());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    int64_t v;
    SF_RETURN_IF_ERROR(GetScalarFromTensor(t, i, &v));
    if (v < -1) {
      *out = ShapeHandle();
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid value in tensor used for shape: ", v));
    }
    dims.push_back(MakeDim(v));
  }
  *out = MakeShape(std::move(dims));
  return absl::OkStatus();
}

absl::Status InferenceContext::MakeDimForScalarInput(int idx,
                                                     DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return absl::OkStatus();
  }
  int64_t v;
  SF_RETURN_IF_ERROR(GetScalarFromTensor(t, &v));
  if (v < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dimension size, given by scalar input ", idx,
                     ", must be non-negative but is ", v));
  }
  *out = MakeDim(v);
  return absl::OkStatus();
}

absl::Status InferenceContext::GetScalarFromTensor(const Tensor* t,
                                                   int64_t* val) {
  if (t->dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input must be scalar but has rank ", t->dims()));
  }
  return GetScalarFromTensor(t, 0, val);
}

absl::Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t idx,
                                                   int64_t* val) {
  if (t->dtype() == DT_INT32) {
    *val = t->flat<int32_t>()(idx);
  } else if (t->dtype() == DT_INT64) {
    *val = t->flat<int64_t>()(idx);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Scalar input must be int32 or int64, but was ",
                     DataTypeString(t->dtype())));
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Add(DimensionHandle first,
                                   DimensionOrConstant second,
                                   DimensionHandle* out) {
  const int64_t a = Value(first), b = Value(second);
  if (b == 0) {
    *out = first;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = MakeDim(a + b);
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Subtract(DimensionHandle first,
                                        DimensionOrConstant second,
                                        DimensionHandle* out) {
  const int64_t a = Value(first), b = Value(second);
  if (b == 0) {
    *out = first;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else if (a < b) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Negative dimension size caused by subtracting ", b, " from ", a));
  } else {
    *out = MakeDim(a - b);
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Multiply(DimensionHandle first,
                                        DimensionOrConstant second,
                                        DimensionHandle* out) {
  const int64_t a = Value(first), b = Value(second);
  if (b == 1) {
    *out = first;
  } else if (a == 1) {
    *out = MakeDim(second);
  } else if (a == 0 || b == 0) {
    *out = MakeDim(0);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = MakeDim(a * b);
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Divide(DimensionHandle dividend,
                                      DimensionOrConstant divisor,
                                      bool evenly_divisible,
                                      DimensionHandle* out) {
  const int64_t d = Value(divisor);
  if (d == 1) {
    *out = dividend;
  } else if (!ValueKnown(dividend) || d == kUnknownDim) {
    *out = UnknownDim();
  } else {
    const int64_t a = Value(dividend);
    if (d <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Divisor must be positive but is ", d));
    }
    if (evenly_divisible && a % d != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Dimension size must be evenly divisible by ", d, " but is ", a));
    }
    *out = MakeDim(a / d);
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Min(DimensionHandle first,
                                   DimensionOrConstant second,
                                   DimensionHandle* out) {
  const int64_t a = Value(first), b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a <= b ? first : MakeDim(second);
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::Max(DimensionHandle first,
                                   DimensionOrConstant second,
                                   DimensionHandle* out) {
  const int64_t a = Value(first), b = Value(second);
  if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a >= b ? first : MakeDim(second);
  }
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
