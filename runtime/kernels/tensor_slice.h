// A hyper-rectangular slice of a tensor, as checkpoints of partitioned
// variables name and store them.
//
// Text form (the `shape_and_slices` inputs of SaveV2 / RestoreV2): the full
// shape's dims, then one slice, separated by spaces, e.g. "4 3 0,2:-": dims
// [4, 3], rows 0..1 and every column. Each extent is "start,length" or "-"
// (the whole dimension). A scalar's spec is just a (possibly empty) slice.
//
// Stored form: a TensorSliceProto (proto/tensor_slice.proto) whose extents
// leave `length` unset for a whole dimension, and the index key of a slice's
// bytes, EncodeSliceKey (an order-preserving encoding of the tensor's name
// and the extents; CHECKPOINT_FORMAT.md spells out the bytes).
//
// Pure values and functions; thread-compatible. Errors are InvalidArgument
// (text and protos come from users or files; callers re-code file
// problems as DataLoss).
#ifndef STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_H_
#define STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/tensor_slice.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

class TensorSlice {
 public:
  // Length of an extent that covers its whole dimension.
  static constexpr int64_t kFullExtent = -1;

  TensorSlice() = default;
  // `rank` whole-dimension extents.
  static TensorSlice Full(int rank);

  // Parses "<dims> <slice>" (see above) into the full shape and the slice,
  // which is checked to lie inside it.
  static absl::Status ParseShapeAndSlice(absl::string_view spec,
                                         TensorShape* full_shape,
                                         TensorSlice* slice);
  // From a stored proto: InvalidArgument for negative starts or lengths.
  static absl::Status FromProto(const TensorSliceProto& proto,
                                TensorSlice* slice);
  void AsProto(TensorSliceProto* proto) const;

  int dims() const { return static_cast<int>(start_.size()); }
  int64_t start(int d) const { return start_[d]; }
  // kFullExtent for a whole dimension.
  int64_t length(int d) const { return length_[d]; }
  bool IsFullAt(int d) const { return length_[d] == kFullExtent; }
  bool IsFull() const;

  // Whether every extent lies inside `shape` (and the ranks agree).
  bool FitsIn(const TensorShape& shape) const;
  // The slice's own shape within `full` (whole extents take full's dim).
  // Requires FitsIn(full).
  TensorShape SliceShape(const TensorShape& full) const;
  // The same slice with whole extents written out against `full`.
  TensorSlice Resolved(const TensorShape& full) const;
  // Whether the two slices (both resolved against the same shape) overlap,
  // and if so their intersection in `*out`.
  bool Intersect(const TensorSlice& other, TensorSlice* out) const;

  // "0,2:-" (dims are not included).
  std::string DebugString() const;

  bool operator==(const TensorSlice& other) const {
    return start_ == other.start_ && length_ == other.length_;
  }

 private:
  std::vector<int64_t> start_;
  std::vector<int64_t> length_;
};

// The index key holding the bytes of `slice` of tensor `name`.
std::string EncodeSliceKey(absl::string_view name, const TensorSlice& slice);

// Copies the region `region` (resolved, in full-tensor coordinates) from
// `src`, which holds the resolved slice `src_slice` of the full tensor, to
// `dst`, which holds the resolved slice `dst_slice`. The region must lie in
// both slices and the tensors must share a dtype that DispatchByElementSize
// handles.
void CopySliceRegion(const Tensor& src, const TensorSlice& src_slice,
                     const TensorSlice& region, const TensorSlice& dst_slice,
                     Tensor* dst);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_H_
