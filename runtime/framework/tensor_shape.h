// TensorShape: a fully defined shape (every dim >= 0).
// PartialTensorShape: a possibly unknown rank and/or unknown (-1) dims, as
// used by shape attrs such as Placeholder's.
//
// Value types; not thread-safe for concurrent mutation.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "proto/tensor_shape.pb.h"

namespace stepflow {

class TensorShape {
 public:
  // The highest rank a tensor may have (TensorFlow's TensorShape::
  // kMaxDimensions).
  static constexpr int kMaxDimensions = 254;

  // Scalar.
  TensorShape() = default;
  // Dims must be >= 0 (checked by IsValid/BuildTensorShape, not here).
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(absl::Span<const int64_t> dims)
      : dims_(dims.begin(), dims.end()) {}

  // Validating constructors: InvalidArgument on negative dims, overflow of
  // the element count, more than kMaxDimensions dims, unknown rank or
  // unknown dims.
  static absl::Status BuildTensorShape(absl::Span<const int64_t> dims,
                                       TensorShape* out);
  static absl::Status FromProto(const TensorShapeProto& proto,
                                TensorShape* out);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int d) const { return dims_[d]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void InsertDim(int d, int64_t size) { dims_.insert(dims_.begin() + d, size); }
  void RemoveDim(int d) { dims_.erase(dims_.begin() + d); }
  void set_dim(int d, int64_t size) { dims_[d] = size; }
  void Clear() { dims_.clear(); }

  bool IsSameSize(const TensorShape& other) const {
    return dims_ == other.dims_;
  }
  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }

  void AsProto(TensorShapeProto* proto) const;
  // "[2,3]"; "[]" for scalars.
  std::string DebugString() const;

 private:
  absl::InlinedVector<int64_t, 4> dims_;
};

class PartialTensorShape {
 public:
  // Unknown rank.
  PartialTensorShape() = default;
  // -1 marks an unknown dim.
  explicit PartialTensorShape(absl::Span<const int64_t> dims)
      : known_rank_(true), dims_(dims.begin(), dims.end()) {}

  static absl::Status FromProto(const TensorShapeProto& proto,
                                PartialTensorShape* out);

  bool unknown_rank() const { return !known_rank_; }
  int dims() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim_size(int d) const { return dims_[d]; }
  bool IsFullyDefined() const;
  // True if `shape` is one of the shapes this partial shape describes.
  bool IsCompatibleWith(const TensorShape& shape) const;
  // "<unknown>", "[?,3]".
  std::string DebugString() const;

 private:
  bool known_rank_ = false;
  absl::InlinedVector<int64_t, 4> dims_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_
