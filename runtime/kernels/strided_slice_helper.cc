#include "runtime/kernels/strided_slice_helper.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;
// Bits beyond this cannot be expressed in the int masks.
constexpr int kMaxSpecDims = 62;

bool Bit(int64_t mask, int i) { return ((mask >> i) & 1) != 0; }

// The sparse spec (one entry per begin/end/strides element, with the
// ellipsis, new-axis and shrink masks) expanded to one entry per input
// dimension, TensorFlow's "dense" spec, and the order in which the final
// shape takes the dimensions.
struct DenseSpec {
  explicit DenseSpec(int rank)
      : begin(rank, 0),
        end(rank, 0),
        stride(rank, 1),
        begin_masked(rank, false),
        end_masked(rank, false),
        shrink(rank, false) {}
  std::vector<int64_t> begin, end, stride;
  std::vector<bool> begin_masked, end_masked, shrink;
  std::vector<int> gather;  // Final dims: dense index, kNewAxis, kShrinkAxis.
};

absl::Status BuildDenseSpec(const OpKernel& kernel, int rank,
                            const std::vector<int64_t>& begin,
                            const std::vector<int64_t>& end,
                            const std::vector<int64_t>& strides,
                            const StridedSliceMasks& masks, DenseSpec* dense) {
  const int sparse_dims = static_cast<int>(begin.size());
  if (sparse_dims > kMaxSpecDims) {
    return NodeInvalidArgument(kernel, "Slice spec has ", sparse_dims,
                               " dimensions; at most ", kMaxSpecDims,
                               " are supported");
  }
  const int64_t ellipsis =
      masks.ellipsis_mask & ((int64_t{1} << sparse_dims) - 1);
  if ((ellipsis & (ellipsis - 1)) != 0) {
    return NodeInvalidArgument(kernel,
                               "Multiple ellipses in slice spec not allowed");
  }
  // Without an explicit ellipsis, one is implied after the last entry.
  int64_t ellipsis_mask = ellipsis;
  int total_sparse = sparse_dims;
  if (ellipsis_mask == 0) {
    ellipsis_mask = int64_t{1} << sparse_dims;
    ++total_sparse;
  }
  int full = 0;
  for (int i = 0; i < total_sparse; ++i) {
    if (Bit(ellipsis_mask, i)) {
      int new_axes_after = 0;
      for (int j = i + 1; j < sparse_dims; ++j) {
        if (Bit(masks.new_axis_mask, j) && !Bit(ellipsis_mask, j)) {
          ++new_axes_after;
        }
      }
      const int next =
          std::min(rank - (sparse_dims - i) + 1 + new_axes_after, rank);
      for (; full < next; ++full) {
        dense->begin_masked[full] = dense->end_masked[full] = true;
        dense->stride[full] = 1;
        dense->gather.push_back(full);
      }
      continue;
    }
    if (Bit(masks.new_axis_mask, i)) {
      dense->gather.push_back(kNewAxis);
      continue;
    }
    if (full >= rank) {
      return NodeInvalidArgument(kernel, "Index out of range using input dim ",
                                 full, "; input has only ", rank, " dims");
    }
    dense->begin[full] = begin[i];
    dense->end[full] = end[i];
    dense->stride[full] = strides[i];
    dense->begin_masked[full] = Bit(masks.begin_mask, i);
    dense->end_masked[full] = Bit(masks.end_mask, i);
    dense->shrink[full] = Bit(masks.shrink_axis_mask, i);
    dense->gather.push_back(dense->shrink[full] ? kShrinkAxis : full);
    ++full;
  }
  return absl::OkStatus();
}

// Dimension `i`'s begin, stride and size in `spec`; false in `*identity`
// when the dimension is not taken whole.
absl::Status ResolveDimension(const OpKernel& kernel, const DenseSpec& dense,
                              int i, int64_t dim, StridedSliceSpec* spec,
                              bool* identity) {
  const int64_t s = dense.stride[i];
  if (s == 0) {
    return NodeInvalidArgument(kernel, "strides[", i, "] must be non-zero");
  }
  if (dense.shrink[i]) {
    const int64_t x = dense.begin[i];
    const int64_t fwd = x < 0 ? dim + x : x;
    if (fwd < 0 || fwd >= dim) {
      return NodeInvalidArgument(kernel, "slice index ", x, " of dimension ", i,
                                 " out of bounds.");
    }
    spec->begin[i] = fwd;
    spec->stride[i] = 1;
    spec->processing_dims[i] = 1;
    if (dim != 1) *identity = false;
    return absl::OkStatus();
  }
  // Canonicalise begin (c = 0) and end (c = 1), clamping into range.
  auto canonical = [&](int64_t x, bool masked, int c) -> int64_t {
    if (masked) {
      return s > 0 ? (c == 0 ? 0 : dim) : (c == 0 ? dim - 1 : -1);
    }
    const int64_t fwd = x < 0 ? dim + x : x;
    const int64_t lo = s > 0 ? 0 : -1;
    const int64_t hi = s > 0 ? dim : dim - 1;
    return std::max(lo, std::min(hi, fwd));
  };
  const int64_t b = canonical(dense.begin[i], dense.begin_masked[i], 0);
  const int64_t e = canonical(dense.end[i], dense.end_masked[i], 1);
  const int64_t interval = e - b;
  int64_t size = 0;
  if (interval != 0 && (interval < 0) == (s < 0)) {
    size = interval / s + (interval % s != 0 ? 1 : 0);
  }
  spec->begin[i] = b;
  spec->stride[i] = s;
  spec->processing_dims[i] = size;
  if (!(s == 1 && b == 0 && size == dim)) *identity = false;
  return absl::OkStatus();
}

}  // namespace

absl::Status ResolveStridedSlice(const OpKernel& kernel,
                                 const TensorShape& input,
                                 const std::vector<int64_t>& begin,
                                 const std::vector<int64_t>& end,
                                 const std::vector<int64_t>& strides,
                                 const StridedSliceMasks& masks,
                                 StridedSliceSpec* spec) {
  const int rank = input.dims();
  DenseSpec dense(rank);
  absl::Status s =
      BuildDenseSpec(kernel, rank, begin, end, strides, masks, &dense);
  if (!s.ok()) return s;
  spec->begin.assign(rank, 0);
  spec->stride.assign(rank, 1);
  spec->processing_dims.assign(rank, 0);
  bool identity = true;
  for (int i = 0; i < rank; ++i) {
    s = ResolveDimension(kernel, dense, i, input.dim_size(i), spec, &identity);
    if (!s.ok()) return s;
  }
  spec->final_shape.Clear();
  for (int g : dense.gather) {
    if (g == kNewAxis) {
      spec->final_shape.AddDim(1);
    } else if (g >= 0) {
      spec->final_shape.AddDim(spec->processing_dims[g]);
    }
  }
  spec->is_identity = identity;
  return absl::OkStatus();
}

absl::Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                                   StridedSliceMasks* masks) {
  const std::pair<const char*, int64_t*> attrs[] = {
      {"begin_mask", &masks->begin_mask},
      {"end_mask", &masks->end_mask},
      {"ellipsis_mask", &masks->ellipsis_mask},
      {"new_axis_mask", &masks->new_axis_mask},
      {"shrink_axis_mask", &masks->shrink_axis_mask}};
  for (const auto& [name, mask] : attrs) {
    if (!ctx->HasAttr(name)) continue;
    absl::Status s = ctx->GetAttr(name, mask);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ResolveStridedSliceInputs(
    const OpKernel& kernel, const TensorShape& input, const Tensor& begin_t,
    const Tensor& end_t, const Tensor& strides_t,
    const StridedSliceMasks& masks, StridedSliceSpec* spec) {
  if (!(begin_t.dims() == 1 && end_t.dims() == 1 && strides_t.dims() == 1 &&
        begin_t.dim_size(0) == end_t.dim_size(0) &&
        begin_t.dim_size(0) == strides_t.dim_size(0))) {
    return NodeInvalidArgument(
        kernel,
        "Expected begin, end, and strides to be 1D equal size "
        "tensors, but got shapes ",
        begin_t.shape().DebugString(), ", ", end_t.shape().DebugString(),
        ", and ", strides_t.shape().DebugString(), " instead.");
  }
  std::vector<int64_t> begin, end, strides;
  for (const auto& [t, v] :
       {std::make_pair(&begin_t, &begin), std::make_pair(&end_t, &end),
        std::make_pair(&strides_t, &strides)}) {
    absl::Status s = IndexTensorToVector(kernel, *t, v);
    if (!s.ok()) return s;
  }
  return ResolveStridedSlice(kernel, input, begin, end, strides, masks, spec);
}

}  // namespace stepflow
