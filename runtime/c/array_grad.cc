// Gradients of the array ops: reshapes, transposes, concatenation,
// stacking, slicing, gathering, tiling, and the ops whose results carry no
// gradient (shapes, fills, constants, placeholders). Formulas are
// TensorFlow's.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/c/c_api.h"
#include "runtime/c/gradient_builder.h"
#include "runtime/c/gradient_registry.h"

namespace stepflow {
namespace c_api {
namespace {

int64_t IntAttr(TF_Operation* op, const char* name) {
  TF_Status* s = TF_NewStatus();
  int64_t v = 0;
  TF_OperationGetAttrInt(op, name, &v, s);
  TF_DeleteStatus(s);
  return v;
}

// dy reshaped to x's shape; every other input gets none.
void ReshapeLikeInputGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                          Outputs* dx) {
  dx->assign(TF_OperationNumInputs(op), NoGradient());
  (*dx)[0] = b.Reshape(dy[0], b.Shape(OpInput(op, 0)));
}

void TransposeGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                   Outputs* dx) {
  TF_Output inverse = b.Op("InvertPermutation", {OpInput(op, 1)});
  *dx = {b.Op("Transpose", {dy[0], inverse}), NoGradient()};
}

// Concatenations: values are inputs [first, first + n), the axis is input
// `axis_input`; each value's gradient is its slice of dy.
void ConcatGradHelper(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                      int first, int n, int axis_input, Outputs* dx) {
  TF_Output axis = OpInput(op, axis_input);
  if (GradBuilder::Type(axis) != TF_INT32) axis = b.Cast(axis, TF_INT32);
  // A negative axis counts from the end.
  axis = b.Op("FloorMod", {axis, b.Op("Rank", {OpInput(op, first)})});
  std::vector<TF_Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(b.Shape(OpInput(op, first + i)));
  TF_Operation* offsets = b.AddOp("ConcatOffset", {{axis}, shapes});
  dx->assign(TF_OperationNumInputs(op), NoGradient());
  if (offsets == nullptr) return;
  for (int i = 0; i < n; ++i) {
    (*dx)[first + i] = b.Op("Slice", {dy[0], TF_Output{offsets, i}, shapes[i]});
  }
}

void ConcatV2Grad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                  Outputs* dx) {
  const int n = TF_OperationNumInputs(op) - 1;
  ConcatGradHelper(b, op, dy, 0, n, n, dx);
}

void ConcatGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  ConcatGradHelper(b, op, dy, 1, TF_OperationNumInputs(op) - 1, 0, dx);
}

// Split / SplitV: the pieces' gradients concatenated back.
TF_Output Unsplit(GradBuilder& b, const Outputs& dy, TF_Output axis) {
  return TF_Output{b.AddOp("ConcatV2", {dy, {axis}}), 0};
}

void SplitGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
               Outputs* dx) {
  *dx = {NoGradient(), Unsplit(b, dy, OpInput(op, 0))};
}

void SplitVGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  *dx = {Unsplit(b, dy, OpInput(op, 2)), NoGradient(), NoGradient()};
}

// Pad(x, paddings): the part of dy that x became.
void PadGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output paddings = OpInput(op, 1);
  if (GradBuilder::Type(paddings) != TF_INT32) {
    paddings = b.Cast(paddings, TF_INT32);
  }
  TF_Output before = b.Op("Slice", {paddings, b.ConstInt32({0, 0}, false),
                                    b.ConstInt32({-1, 1}, false)});
  TF_Output begin = b.Reshape(before, b.ConstInt32({-1}, false));
  *dx = {b.Op("Slice", {dy[0], begin, b.Shape(x)}), NoGradient()};
}

void PackGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
              Outputs* dx) {
  const int n = TF_OperationNumInputs(op);
  const int64_t axis = IntAttr(op, "axis");
  TF_Operation* parts =
      b.AddOp("Unpack", {{dy[0]}}, [n, axis](TF_OperationDescription* d) {
        TF_SetAttrInt(d, "num", n);
        TF_SetAttrInt(d, "axis", axis);
      });
  dx->assign(n, NoGradient());
  if (parts == nullptr) return;
  for (int i = 0; i < n; ++i) (*dx)[i] = TF_Output{parts, i};
}

void UnpackGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  const int64_t axis = IntAttr(op, "axis");
  TF_Operation* packed = b.AddOp(
      "Pack", {dy},
      [axis](TF_OperationDescription* d) { TF_SetAttrInt(d, "axis", axis); });
  *dx = {TF_Output{packed, 0}};
}

// Slice(x, begin, size): dy padded back to x's shape.
void SliceGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
               Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output begin = OpInput(op, 1);
  if (GradBuilder::Type(begin) != TF_INT32) begin = b.Cast(begin, TF_INT32);
  TF_Output rank = b.Op("Rank", {x});
  TF_Output column =
      TF_Output{b.AddOp("Pack", {{rank, b.ConstInt32({1}, true)}}), 0};
  TF_Output before = b.Reshape(begin, column);
  TF_Output after =
      b.Reshape(b.Sub(b.Sub(b.Shape(x), b.Shape(dy[0])), begin), column);
  TF_Operation* paddings =
      b.AddOp("ConcatV2", {{before, after}, {b.ConstInt32({1}, true)}});
  *dx = {b.Op("Pad", {dy[0], TF_Output{paddings, 0}}), NoGradient(),
         NoGradient()};
}

// GatherV2 along axis 0 with batch_dims 0 (the common case): the rows of
// dy added into a zero tensor of params' shape.
void GatherV2Grad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                  Outputs* dx) {
  TF_Output params = OpInput(op, 0), indices = OpInput(op, 1);
  if (IntAttr(op, "batch_dims") != 0) {
    b.Fail(absl::UnimplementedError(
        "No gradient defined for GatherV2 with batch_dims != 0"));
    return;
  }
  TF_Output shape = b.Shape(params);
  if (GradBuilder::Type(shape) != TF_INT32) shape = b.Cast(shape, TF_INT32);
  // Only axis 0: move other axes there with a transpose first.
  TF_Output axis = OpInput(op, 2);
  if (GradBuilder::Type(axis) != TF_INT32) axis = b.Cast(axis, TF_INT32);
  TF_Output rank = b.Op("Rank", {params});
  axis = b.Op("FloorMod", {axis, rank});
  // perm = [axis, 0..axis-1, axis+1..rank-1] applied to params; dy gets
  // the matching arrangement of its (indices-rank-expanded) axes.
  TF_Output zero = b.ConstInt32({0}, true);
  TF_Output one = b.ConstInt32({1}, true);
  TF_Output lower = b.Op("Range", {zero, axis, one});
  TF_Output upper = b.Op("Range", {b.Add(axis, one), rank, one});
  TF_Output axis_vec = b.Reshape(axis, b.ConstInt32({1}, false));
  TF_Output perm =
      TF_Output{b.AddOp("ConcatV2", {{axis_vec, lower, upper}, {zero}}), 0};
  TF_Output moved_shape = b.Op("GatherV2", {shape, perm, zero});
  TF_Output num_rows =
      b.Op("StridedSlice",
           {moved_shape, b.ConstInt32({0}, false), b.ConstInt32({1}, false),
            b.ConstInt32({1}, false)},
           [](TF_OperationDescription* d) {
             TF_SetAttrInt(d, "shrink_axis_mask", 1);
           });
  // dy has shape params[:axis] + indices.shape + params[axis+1:]; bring
  // the indices axes to the front.
  TF_Output idx_rank = b.Op("Rank", {indices});
  TF_Output dy_rank = b.Op("Rank", {dy[0]});
  TF_Output idx_axes = b.Op("Range", {axis, b.Add(axis, idx_rank), one});
  TF_Output dy_lower = b.Op("Range", {zero, axis, one});
  TF_Output dy_upper = b.Op("Range", {b.Add(axis, idx_rank), dy_rank, one});
  TF_Output dy_perm = TF_Output{
      b.AddOp("ConcatV2", {{idx_axes, dy_lower, dy_upper}, {zero}}), 0};
  TF_Output moved_dy = b.Op("Transpose", {dy[0], dy_perm});
  TF_Output flat_indices = b.Reshape(indices, b.ConstInt32({-1}, false));
  TF_Output row_shape =
      b.Op("StridedSlice",
           {moved_shape, b.ConstInt32({1}, false), b.ConstInt32({0}, false),
            b.ConstInt32({1}, false)},
           [](TF_OperationDescription* d) { TF_SetAttrInt(d, "end_mask", 1); });
  TF_Output flat_dy_shape = TF_Output{
      b.AddOp("ConcatV2", {{b.ConstInt32({-1}, false), row_shape}, {zero}}), 0};
  TF_Output rows = b.Reshape(moved_dy, flat_dy_shape);
  TF_Output summed = b.Op("UnsortedSegmentSum", {rows, flat_indices, num_rows});
  TF_Output inverse = b.Op("InvertPermutation", {perm});
  *dx = {b.Op("Transpose", {summed, inverse}), NoGradient(), NoGradient()};
}

void StridedSliceGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                      Outputs* dx) {
  const TF_DataType index = TypeAttr(op, "Index");
  TF_Output shape =
      b.Op("Shape", {OpInput(op, 0)}, [index](TF_OperationDescription* d) {
        TF_SetAttrType(d, "out_type", index);
      });
  TF_Output grad =
      b.Op("StridedSliceGrad",
           {shape, OpInput(op, 1), OpInput(op, 2), OpInput(op, 3), dy[0]},
           [op](TF_OperationDescription* d) {
             for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask",
                                      "new_axis_mask", "shrink_axis_mask"}) {
               CopyAttr(op, mask, d);
             }
           });
  *dx = {grad, NoGradient(), NoGradient(), NoGradient()};
}

void TileGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
              Outputs* dx) {
  // dy of shape multiples*shape(x) -> reshape to interleaved
  // [m0, s0, m1, s1, ...] and sum over the even axes.
  TF_Output x = OpInput(op, 0);
  TF_Output multiples = OpInput(op, 1);
  if (GradBuilder::Type(multiples) != TF_INT32) {
    multiples = b.Cast(multiples, TF_INT32);
  }
  TF_Output shape = b.Shape(x);
  TF_Output pairs = TF_Output{
      b.AddOp("Pack", {{multiples, shape}},
              [](TF_OperationDescription* d) { TF_SetAttrInt(d, "axis", 1); }),
      0};
  TF_Output split_shape = b.Reshape(pairs, b.ConstInt32({-1}, false));
  TF_Output zero = b.ConstInt32({0}, true);
  TF_Output two = b.ConstInt32({2}, true);
  TF_Output axes = b.Op("Range", {zero, b.Op("Size", {split_shape}), two});
  *dx = {b.Sum(b.Reshape(dy[0], split_shape), axes, false), NoGradient()};
}

void BroadcastToGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                     Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output sx = b.Shape(x);
  TF_Output target = OpInput(op, 1);
  if (GradBuilder::Type(target) != TF_INT32) {
    target = b.Cast(target, TF_INT32);
  }
  TF_Operation* args = b.AddOp("BroadcastGradientArgs", {{sx}, {target}});
  *dx = {b.Reshape(b.Sum(dy[0], TF_Output{args, 0}, true), sx), NoGradient()};
}

REGISTER_GRADIENT("Reshape", ReshapeLikeInputGrad);
REGISTER_GRADIENT("ExpandDims", ReshapeLikeInputGrad);
REGISTER_GRADIENT("Squeeze", ReshapeLikeInputGrad);
REGISTER_GRADIENT("Transpose", TransposeGrad);
REGISTER_GRADIENT("Concat", ConcatGrad);
REGISTER_GRADIENT("ConcatV2", ConcatV2Grad);
REGISTER_GRADIENT("Split", SplitGrad);
REGISTER_GRADIENT("SplitV", SplitVGrad);
REGISTER_GRADIENT("Pad", PadGrad);
REGISTER_GRADIENT("Pack", PackGrad);
REGISTER_GRADIENT("Unpack", UnpackGrad);
REGISTER_GRADIENT("Slice", SliceGrad);
REGISTER_GRADIENT("GatherV2", GatherV2Grad);
REGISTER_GRADIENT("StridedSlice", StridedSliceGrad);
REGISTER_GRADIENT("Tile", TileGrad);
REGISTER_GRADIENT("BroadcastTo", BroadcastToGrad);

REGISTER_NO_GRADIENT("Const");
REGISTER_NO_GRADIENT("Placeholder");
REGISTER_NO_GRADIENT("PlaceholderWithDefault");
REGISTER_NO_GRADIENT("Shape");
REGISTER_NO_GRADIENT("ShapeN");
REGISTER_NO_GRADIENT("Size");
REGISTER_NO_GRADIENT("Rank");
REGISTER_NO_GRADIENT("ZerosLike");
REGISTER_NO_GRADIENT("OnesLike");
REGISTER_NO_GRADIENT("Fill");
REGISTER_NO_GRADIENT("InvertPermutation");
REGISTER_NO_GRADIENT("BroadcastGradientArgs");
REGISTER_NO_GRADIENT("ConcatOffset");
REGISTER_NO_GRADIENT("OneHot");

}  // namespace
}  // namespace c_api
}  // namespace stepflow
