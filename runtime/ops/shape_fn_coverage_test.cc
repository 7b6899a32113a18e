// Every registered op has a shape function, as TensorFlow requires of
// every op it registers; the runtime's own ops (_Arg, _Send, ...) too.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace {

// Ops whose shape functions are being written on a branch of their own
// (array layout, linear algebra, segment, pooling and image ops); the
// list goes once they land.
const absl::flat_hash_set<std::string>& PendingOps() {
  static const auto* const pending = new absl::flat_hash_set<std::string>{
      "AccumulateNV2",
      "AdjustContrastv2",
      "AvgPool3D",
      "AvgPool3DGrad",
      "BatchToSpace",
      "BatchToSpaceND",
      "Betainc",
      "Bincount",
      "Bitcast",
      "BlockLSTMGrad",
      "BlockLSTMGradV2",
      "BroadcastArgs",
      "Cholesky",
      "Conv3D",
      "Conv3DBackpropFilterV2",
      "Conv3DBackpropInputV2",
      "CropAndResize",
      "DeepCopy",
      "DenseBincount",
      "DepthToSpace",
      "DynamicStitch",
      "Einsum",
      "GRUBlockCellGrad",
      "GatherNd",
      "LRN",
      "LRNGrad",
      "ListDiff",
      "LogMatrixDeterminant",
      "MatrixDeterminant",
      "MatrixDiag",
      "MatrixDiagPart",
      "MatrixDiagPartV2",
      "MatrixDiagPartV3",
      "MatrixDiagV2",
      "MatrixDiagV3",
      "MatrixInverse",
      "MatrixSetDiag",
      "MatrixSetDiagV2",
      "MatrixSetDiagV3",
      "MatrixSolve",
      "MatrixTriangularSolve",
      "MaxPool3D",
      "MaxPool3DGrad",
      "MaxPool3DGradGrad",
      "MaxPoolGradGrad",
      "MaxPoolGradGradV2",
      "MaxPoolGradGradWithArgmax",
      "MaxPoolGradV2",
      "MaxPoolGradWithArgmax",
      "MaxPoolV2",
      "MaxPoolWithArgmax",
      "MirrorPadGrad",
      "NonMaxSuppressionV3",
      "NonMaxSuppressionV4",
      "NonMaxSuppressionV5",
      "NthElement",
      "Qr",
      "ResizeBilinearGrad",
      "ResizeNearestNeighborGrad",
      "ReverseSequence",
      "Roll",
      "ScatterNd",
      "SegmentMax",
      "SegmentMean",
      "SegmentMin",
      "SegmentProd",
      "SegmentSum",
      "SpaceToBatch",
      "SpaceToBatchND",
      "SpaceToDepth",
      "Svd",
      "TensorScatterAdd",
      "TensorScatterMax",
      "TensorScatterMin",
      "TensorScatterSub",
      "TensorScatterUpdate",
      "UniqueV2",
      "UniqueWithCounts",
      "UnsortedSegmentMax",
      "UnsortedSegmentMin",
      "UnsortedSegmentProd",
      "UnsortedSegmentSum",
  };
  return *pending;
}

TEST(ShapeFnCoverageTest, EveryRegisteredOpHasAShapeFunction) {
  const std::vector<std::string> ops = OpRegistry::Global()->ListOps();
  ASSERT_GT(ops.size(), 400u);
  std::vector<std::string> missing;
  for (const std::string& op : ops) {
    const ShapeInferenceFn* fn = OpRegistry::Global()->LookUpShapeFn(op);
    if ((fn == nullptr || !*fn) && !PendingOps().contains(op)) {
      missing.push_back(op);
    }
  }
  EXPECT_TRUE(missing.empty())
      << missing.size() << " ops without a shape function: "
      << absl::StrJoin(missing, " ");
}

TEST(ShapeFnCoverageTest, PendingOpsAreRegistered) {
  for (const std::string& op : PendingOps()) {
    EXPECT_NE(OpRegistry::Global()->LookUpOrNull(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace stepflow
