// Every registered op has a shape function, as TensorFlow requires of
// every op it registers; the runtime's own ops (_Arg, _Send, ...) too.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace {

TEST(ShapeFnCoverageTest, EveryRegisteredOpHasAShapeFunction) {
  const std::vector<std::string> ops = OpRegistry::Global()->ListOps();
  ASSERT_GT(ops.size(), 400u);
  std::vector<std::string> missing;
  for (const std::string& op : ops) {
    const ShapeInferenceFn* fn = OpRegistry::Global()->LookUpShapeFn(op);
    if (fn == nullptr || !*fn) missing.push_back(op);
  }
  EXPECT_TRUE(missing.empty())
      << missing.size()
      << " ops without a shape function: " << absl::StrJoin(missing, " ");
}

}  // namespace
}  // namespace stepflow
