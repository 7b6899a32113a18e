#include "runtime/framework/tensor_shape.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow {
namespace {

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

}  // namespace

absl::Status TensorShape::BuildTensorShape(absl::Span<const int64_t> dims,
                                           TensorShape* out) {
  if (dims.size() > static_cast<size_t>(kMaxDimensions)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has ", dims.size(), " dimensions; at most ",
                     kMaxDimensions, " are allowed"));
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Dimension ", d, " must be >= 0 in shape ", DimsString(dims)));
    }
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape ", DimsString(dims), " has too many elements (overflow)"));
    }
    count *= d;
  }
  out->dims_.assign(dims.begin(), dims.end());
  return absl::OkStatus();
}

absl::Status TensorShape::FromProto(const TensorShapeProto& proto,
                                    TensorShape* out) {
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError(
        "Shape of unknown rank is not a fully defined shape");
  }
  if (proto.dim_size() > kMaxDimensions) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has ", proto.dim_size(), " dimensions; at most ",
                     kMaxDimensions, " are allowed"));
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape has an unknown or negative dimension (", d.size(),
                       "); a fully defined shape is required"));
    }
    dims.push_back(d.size());
  }
  return BuildTensorShape(dims, out);
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const { return DimsString(dims_); }

absl::Status PartialTensorShape::FromProto(const TensorShapeProto& proto,
                                           PartialTensorShape* out) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError(
          "Shape proto has unknown_rank set and also lists dimensions");
    }
    out->known_rank_ = false;
    out->dims_.clear();
    return absl::OkStatus();
  }
  if (proto.dim_size() > TensorShape::kMaxDimensions) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has ", proto.dim_size(), " dimensions; at most ",
                     TensorShape::kMaxDimensions, " are allowed"));
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape dimension ", d.size(), " must be >= -1"));
    }
    dims.push_back(d.size());
  }
  out->known_rank_ = true;
  out->dims_ = dims;
  return absl::OkStatus();
}

bool PartialTensorShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  if (!known_rank_) return true;
  if (static_cast<int>(dims_.size()) != shape.dims()) return false;
  for (int i = 0; i < shape.dims(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != shape.dim_size(i)) return false;
  }
  return true;
}

std::string PartialTensorShape::DebugString() const {
  if (!known_rank_) return "<unknown>";
  return absl::StrCat("[",
                      absl::StrJoin(dims_, ",",
                                    [](std::string* out, int64_t d) {
                                      if (d < 0) {
                                        out->append("?");
                                      } else {
                                        absl::StrAppend(out, d);
                                      }
                                    }),
                      "]");
}

}  // namespace stepflow
