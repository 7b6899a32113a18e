// Shape functions of the element-rearranging ops (declared in
// layout_shape_fns.h).
#include "runtime/framework/layout_shape_fns.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/shape_tensor_util.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// What SpaceToBatch and BatchToSpace share: the block shape (its shape
// and, when constant, its values) and the paddings or crops.
struct BlockArgs {
  ShapeHandle block_shape_shape;
  bool block_known = false;
  std::vector<int64_t> block;
  ShapeHandle pads_shape;
  const Tensor* pads = nullptr;
};

// Checks the block shape and paddings (or crops) against `input`, which
// it refines; *num_block_dims is the number of spatial dimensions.
absl::Status CheckBlockArgs(InferenceContext* c, BlockArgs* a,
                            ShapeHandle* input, int64_t* num_block_dims) {
  if (c->Rank(a->block_shape_shape) != 1) {
    return absl::InvalidArgumentError("block_shape must have rank 1.");
  }
  DimensionHandle n = c->Dim(a->block_shape_shape, 0);
  if (!c->ValueKnown(n)) {
    return absl::InvalidArgumentError("block_shape must have known size.");
  }
  *num_block_dims = c->Value(n);
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(*input, *num_block_dims + 1, input));
  return c->Merge(a->pads_shape, c->Matrix(*num_block_dims, 2), &a->pads_shape);
}

// The block's product applied to the batch dimension (multiplied for
// SpaceToBatch, divided evenly for BatchToSpace).
absl::Status BlockBatch(InferenceContext* c, const BlockArgs& a,
                        ShapeHandle input, int64_t num_block_dims,
                        bool space_to_batch, DimensionHandle* batch) {
  *batch = c->Dim(input, 0);
  if (!a.block_known) {
    if (num_block_dims > 0) *batch = c->UnknownDim();
    return absl::OkStatus();
  }
  for (int64_t d = 0; d < num_block_dims; ++d) {
    if (a.block[d] < 1) {
      return absl::InvalidArgumentError("block_shape must be positive");
    }
    if (!c->ValueKnown(*batch)) {
      *batch = c->UnknownDim();
    } else if (space_to_batch) {
      SF_RETURN_IF_ERROR(c->Multiply(*batch, a.block[d], batch));
    } else {
      SF_RETURN_IF_ERROR(c->Divide(*batch, a.block[d], true, batch));
    }
  }
  return absl::OkStatus();
}

absl::Status SpaceToBatchHelper(InferenceContext* c, ShapeHandle input,
                                BlockArgs a) {
  int64_t num_block_dims = 0;
  SF_RETURN_IF_ERROR(CheckBlockArgs(c, &a, &input, &num_block_dims));
  // An empty constant block shape counts as unknown here.
  if (a.block.empty()) a.block_known = false;
  DimensionHandle batch;
  SF_RETURN_IF_ERROR(BlockBatch(c, a, input, num_block_dims, true, &batch));
  std::vector<DimensionHandle> dims(num_block_dims + 1, c->UnknownDim());
  dims[0] = batch;
  if (a.pads != nullptr && a.pads->NumElements() > 0) {
    const std::vector<int64_t> pads = FlatInt64(*a.pads);
    for (int64_t d = 0; d < num_block_dims; ++d) {
      const int64_t before = pads[2 * d], after = pads[2 * d + 1];
      if (before < 0 || after < 0) {
        return absl::InvalidArgumentError("paddings cannot be negative");
      }
      if (!a.block_known) continue;
      DimensionHandle padded;
      SF_RETURN_IF_ERROR(c->Add(c->Dim(input, d + 1), before, &padded));
      SF_RETURN_IF_ERROR(c->Add(padded, after, &padded));
      SF_RETURN_IF_ERROR(c->Divide(padded, a.block[d], true, &dims[d + 1]));
    }
  }
  ShapeHandle rest, out;
  SF_RETURN_IF_ERROR(c->Subshape(input, num_block_dims + 1, &rest));
  SF_RETURN_IF_ERROR(c->Concatenate(c->MakeShape(dims), rest, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BatchToSpaceHelper(InferenceContext* c, ShapeHandle input,
                                BlockArgs a) {
  int64_t num_block_dims = 0;
  SF_RETURN_IF_ERROR(CheckBlockArgs(c, &a, &input, &num_block_dims));
  DimensionHandle batch;
  SF_RETURN_IF_ERROR(BlockBatch(c, a, input, num_block_dims, false, &batch));
  std::vector<DimensionHandle> dims(num_block_dims + 1, c->UnknownDim());
  dims[0] = batch;
  if (a.pads != nullptr) {
    const std::vector<int64_t> crops = FlatInt64(*a.pads);
    for (int64_t d = 0; d < num_block_dims; ++d) {
      const int64_t start = crops[2 * d], end = crops[2 * d + 1];
      if (start < 0 || end < 0) {
        return absl::InvalidArgumentError("crops cannot be negative");
      }
      if (!a.block_known) continue;
      DimensionHandle size;
      SF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, d + 1), a.block[d], &size));
      SF_RETURN_IF_ERROR(c->Subtract(size, start, &size));
      SF_RETURN_IF_ERROR(c->Subtract(size, end, &dims[d + 1]));
    }
  }
  ShapeHandle rest, out;
  SF_RETURN_IF_ERROR(c->Subshape(input, num_block_dims + 1, &rest));
  SF_RETURN_IF_ERROR(c->Concatenate(c->MakeShape(dims), rest, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

// The ND ops' block shape and paddings/crops come from inputs 1 and 2.
BlockArgs BlockArgsFromInputs(InferenceContext* c) {
  BlockArgs a;
  a.block_shape_shape = c->input(1);
  if (const Tensor* t = c->input_tensor(1)) {
    a.block_known = true;
    a.block = FlatInt64(*t);
  }
  a.pads_shape = c->input(2);
  a.pads = c->input_tensor(2);
  return a;
}

// The 4-D ops' block is block_size in both spatial dimensions; paddings
// or crops are input 1.
absl::Status BlockArgsFromAttr(InferenceContext* c, BlockArgs* a) {
  int64_t block_size = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("block_size", &block_size));
  a->block_shape_shape = c->Vector(2);
  a->block_known = true;
  a->block = {block_size, block_size};
  a->pads_shape = c->input(1);
  a->pads = c->input_tensor(1);
  return absl::OkStatus();
}

}  // namespace

absl::Status SpaceToBatchNDShape(InferenceContext* c) {
  return SpaceToBatchHelper(c, c->input(0), BlockArgsFromInputs(c));
}

absl::Status SpaceToBatchShape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  BlockArgs a;
  SF_RETURN_IF_ERROR(BlockArgsFromAttr(c, &a));
  return SpaceToBatchHelper(c, input, a);
}

absl::Status BatchToSpaceNDShape(InferenceContext* c) {
  ShapeHandle input, unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, &unused));
  return BatchToSpaceHelper(c, input, BlockArgsFromInputs(c));
}

absl::Status BatchToSpaceShape(InferenceContext* c) {
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  BlockArgs a;
  SF_RETURN_IF_ERROR(BlockArgsFromAttr(c, &a));
  return BatchToSpaceHelper(c, input, a);
}

namespace {

// SpaceToDepth and DepthToSpace: NHWC, NCHW or NCHW_VECT_C (rank 5, the
// channels split as [C/4 ... 4]).
absl::Status DepthSpaceShape(InferenceContext* c, bool to_depth) {
  std::string format = "NHWC";
  SF_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  const bool vect_c = format == "NCHW_VECT_C";
  const bool channels_first = format == "NCHW" || vect_c;
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), vect_c ? 5 : 4, &input));
  int64_t block = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  if (block <= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Block size must be > 1, but was: ", block));
  }
  const int h = channels_first ? 2 : 1, w = h + 1;
  const int ch = channels_first ? 1 : 3;
  DimensionHandle height, width, depth;
  if (to_depth) {
    SF_RETURN_IF_ERROR(c->Divide(c->Dim(input, h), block, true, &height));
    SF_RETURN_IF_ERROR(c->Divide(c->Dim(input, w), block, true, &width));
    SF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, ch), block * block, &depth));
  } else {
    SF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, h), block, &height));
    SF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, w), block, &width));
    SF_RETURN_IF_ERROR(
        c->Divide(c->Dim(input, ch), block * block, true, &depth));
  }
  DimensionHandle batch = c->Dim(input, 0);
  if (vect_c) {
    c->set_output(0, c->MakeShape({batch, depth, height, width, 4}));
  } else if (channels_first) {
    c->set_output(0, c->MakeShape({batch, depth, height, width}));
  } else {
    c->set_output(0, c->MakeShape({batch, height, width, depth}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SpaceToDepthShape(InferenceContext* c) {
  return DepthSpaceShape(c, true);
}

absl::Status DepthToSpaceShape(InferenceContext* c) {
  return DepthSpaceShape(c, false);
}

absl::Status BitcastShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  DataType from = DT_INVALID, to = DT_INVALID;
  SF_RETURN_IF_ERROR(c->GetAttr("T", &from));
  SF_RETURN_IF_ERROR(c->GetAttr("type", &to));
  const int64_t from_size = DataTypeSize(from), to_size = DataTypeSize(to);
  if (from_size == 0 || to_size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot bitcast types ", DataTypeString(from), " to ",
        DataTypeString(to), " because one of the type sizes is zero."));
  }
  ShapeHandle out = input;
  if (from_size < to_size) {
    // The last dimension gathers the narrower elements and goes away.
    SF_RETURN_IF_ERROR(c->WithRankAtLeast(input, 1, &out));
    const int64_t ratio = to_size / from_size;
    DimensionHandle last = c->Dim(out, -1);
    if (c->ValueKnown(last) && c->Value(last) != ratio) {
      return absl::InvalidArgumentError(
          absl::StrCat("Cannot bitcast from ", static_cast<int>(from), " to ",
                       static_cast<int>(to), " due to shape. ", c->Value(last),
                       " does not match ", ratio));
    }
    SF_RETURN_IF_ERROR(c->Subshape(out, 0, -1, &out));
  } else if (from_size > to_size) {
    SF_RETURN_IF_ERROR(
        c->Concatenate(input, c->Vector(from_size / to_size), &out));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MirrorPadGradShape(InferenceContext* c) {
  ShapeHandle paddings;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle rows = c->Dim(paddings, 0);
  if (!c->ValueKnown(rows)) {
    c->set_output(0, c->UnknownShape());
    return absl::OkStatus();
  }
  const int64_t rank = c->Value(rows);
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &input));
  SF_RETURN_IF_ERROR(c->Merge(paddings, c->Matrix(rank, 2), &paddings));
  const Tensor* t = c->input_tensor(1);
  if (t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return absl::OkStatus();
  }
  const std::vector<int64_t> pads = FlatInt64(*t);
  std::vector<DimensionHandle> dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t before = pads[2 * i], after = pads[2 * i + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError("Paddings must be non-negative");
    }
    SF_RETURN_IF_ERROR(c->Subtract(c->Dim(input, i), before + after, &dims[i]));
  }
  c->set_output(0, c->MakeShape(std::move(dims)));
  return absl::OkStatus();
}

absl::Status ReverseSequenceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0), lengths;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &lengths));
  int64_t seq_dim = 0, batch_dim = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim));
  SF_RETURN_IF_ERROR(c->GetAttr("batch_dim", &batch_dim));
  if (!c->RankKnown(input)) return UnknownShape(c);
  const int32_t rank = c->Rank(input);
  if (batch_dim < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_dim must be >=0, got ", batch_dim));
  }
  if (batch_dim >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dim must be < input rank: ", batch_dim, " vs. ", rank));
  }
  if (seq_dim >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("seq_dim must be < input rank: ", seq_dim, " vs. ", rank));
  }
  DimensionHandle batch = c->Dim(input, batch_dim);
  SF_RETURN_IF_ERROR(c->Merge(batch, c->Dim(lengths, 0), &batch));
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->ReplaceDim(input, batch_dim, batch, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status RollShape(InferenceContext* c) {
  ShapeHandle unused;
  SF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(2), 1, &unused));
  SF_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &unused));
  return UnchangedShape(c);
}

}  // namespace shape_inference
}  // namespace stepflow
