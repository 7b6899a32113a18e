#include "runtime/framework/io_shape_fns.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// The shape of the slice a "<dims> <extents>" spec names (each extent
// "start,length" or "-" for the whole dimension), with TensorFlow's
// checks and messages (its checkpoint spec parser reports these as
// internal errors).
absl::Status SliceShapeFromSpec(InferenceContext* c, const std::string& spec,
                                ShapeHandle* out) {
  const std::vector<std::string> parts = absl::StrSplit(spec, ' ');
  std::vector<int64_t> dims(parts.size() - 1);
  for (size_t d = 0; d + 1 < parts.size(); ++d) {
    if (!absl::SimpleAtoi(parts[d], &dims[d]) || dims[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Non numerical dimension in shape_and_slice: ", spec));
    }
  }
  const std::string& slice = parts.back();
  const std::string shape_text =
      absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  std::vector<int64_t> lengths;
  if (!slice.empty()) {
    for (absl::string_view extent : absl::StrSplit(slice, ':')) {
      if (extent == "-") {
        lengths.push_back(-1);
        continue;
      }
      const std::vector<absl::string_view> sl = absl::StrSplit(extent, ',');
      int64_t start = 0, length = 0;
      if (sl.size() != 2 || !absl::SimpleAtoi(sl[0], &start) ||
          !absl::SimpleAtoi(sl[1], &length)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected a pair of numbers or '-' but got '", extent,
                         "': string = ", slice));
      }
      if (start < 0 || length <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected non-negative start and positive length but got start = ",
            start, ", length = ", length, ": string = ", slice));
      }
      const size_t d = lengths.size();
      if (d < dims.size() && start + length > dims[d]) {
        return absl::InternalError(absl::StrCat(
            "Extent in dimension ", d, " out of bounds: shape = ", shape_text,
            ", slice = ", slice));
      }
      lengths.push_back(length);
    }
  }
  if (lengths.size() != dims.size()) {
    return absl::InternalError(absl::StrCat(
        "Mismatching ranks: shape = ", shape_text, ", slice = ", slice));
  }
  std::vector<DimensionHandle> out_dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    out_dims.push_back(c->MakeDim(lengths[d] < 0 ? dims[d] : lengths[d]));
  }
  *out = c->MakeShape(out_dims);
  return absl::OkStatus();
}

// Output `index` from spec element `element` of the constant `specs`.
absl::Status OutputFromSpec(InferenceContext* c, const Tensor& specs,
                            int64_t element, int index) {
  const std::string& spec = specs.flat<std::string>()(element);
  if (spec.empty()) {
    c->set_output(index, c->UnknownShape());
    return absl::OkStatus();
  }
  ShapeHandle shape;
  SF_RETURN_IF_ERROR(SliceShapeFromSpec(c, spec, &shape));
  c->set_output(index, shape);
  return absl::OkStatus();
}

absl::Status CheckStringSpecs(const Tensor& specs) {
  if (specs.dtype() != DT_STRING) {
    return absl::InvalidArgumentError(
        "Expected an input tensor of type string.");
  }
  return absl::OkStatus();
}

// Inputs `first`.. are vectors of one entry per tensor (the inputs after
// `first + count`).
absl::Status CheckPerTensorVectors(InferenceContext* c, int first, int count) {
  const int64_t num_tensors = c->num_inputs() - first - count;
  for (int i = first; i < first + count; ++i) {
    ShapeHandle s;
    SF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &s));
    DimensionHandle unused;
    SF_RETURN_IF_ERROR(c->WithValue(c->Dim(s, 0), num_tensors, &unused));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RestoreShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 0, 0));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  return UnknownShape(c);
}

absl::Status RestoreSliceShape(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) SF_RETURN_IF_ERROR(CheckInputRank(c, i, 0));
  const Tensor* specs = c->input_tensor(2);
  if (specs == nullptr) return UnknownShape(c);
  SF_RETURN_IF_ERROR(CheckStringSpecs(*specs));
  return OutputFromSpec(c, *specs, 0, 0);
}

absl::Status RestoreV2Shape(InferenceContext* c) {
  ShapeHandle unused, names, specs_shape;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &names));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &specs_shape));
  SF_RETURN_IF_ERROR(c->Merge(names, specs_shape, &unused));
  const Tensor* specs = c->input_tensor(2);
  if (specs == nullptr) return UnknownShape(c);
  SF_RETURN_IF_ERROR(CheckStringSpecs(*specs));
  if (specs->NumElements() != c->num_outputs()) {
    return absl::InvalidArgumentError(
        "The number of shape_and_slice doesn't match tensor outputs.");
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    SF_RETURN_IF_ERROR(OutputFromSpec(c, *specs, i, i));
  }
  return absl::OkStatus();
}

absl::Status SaveShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 0, 0));
  return CheckPerTensorVectors(c, 1, 1);
}

absl::Status SaveSlicesShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 0, 0));
  return CheckPerTensorVectors(c, 1, 2);
}

absl::Status MergeV2CheckpointsShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 0, 1));
  return CheckInputRank(c, 1, 0);
}

absl::Status ScalarInputsScalarOutputShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    SF_RETURN_IF_ERROR(CheckInputRank(c, i, 0));
  }
  return ScalarShape(c);
}

}  // namespace shape_inference
}  // namespace stepflow
