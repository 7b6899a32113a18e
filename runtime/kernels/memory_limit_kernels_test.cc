// Kernels whose output size comes from input values allocate through
// OpKernelContext: over the device's memory budget they fail with
// ResourceExhausted naming the node, the shape, the dtype and the bytes,
// and the process lives (before, a failed allocation aborted it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/tensor.pb.h"
#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/memory_budget.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace test {
namespace {

class MemoryLimitKernelsTest : public ::testing::Test {
 protected:
  // Runs `def` on `inputs` under a 1 MiB device budget and expects
  // ResourceExhausted naming `node`, `shape` ("[4000000]") and `bytes`.
  void ExpectOom(const NodeDef& def, const std::vector<Tensor>& inputs,
                 const std::string& shape, const std::string& type,
                 const std::string& bytes, bool names_device = true) {
    KernelRunner runner;
    runner.set_allocator(&allocator_);
    absl::Status s = runner.Init(def);
    if (s.ok()) s = runner.Run(inputs);
    EXPECT_TRUE(absl::IsResourceExhausted(s)) << def.op() << ": " << s;
    const std::string message(s.message());
    for (const std::string& want :
         {"{{node " + def.name() + "}}",
          "OOM when allocating tensor with shape" + shape + " and type " + type,
          names_device ? std::string(kTestDeviceName) : std::string(),
          bytes + " bytes", std::string("limit 1048576")}) {
      EXPECT_NE(message.find(want), std::string::npos)
          << def.op() << " does not name '" << want << "': " << message;
    }
    EXPECT_EQ(budget_.bytes_in_use(), 0) << def.op();
  }

  MemoryBudget budget_{"test", 1 << 20};
  CpuAllocator allocator_{&budget_};
};

TEST_F(MemoryLimitKernelsTest, Fill) {
  ExpectOom(TestNode("fill", "Fill")
                .Inputs(2)
                .Attr("T", DT_FLOAT)
                .Attr("index_type", DT_INT32),
            {Vec<int32_t>({100000, 100000}), Scalar<float>(1)},
            "[100000,100000]", "float", "40000000000");
}

TEST_F(MemoryLimitKernelsTest, RandomUniformOfFourTebibytes) {
  ExpectOom(TestNode("r", "RandomUniform")
                .Inputs(1)
                .Attr("dtype", DT_FLOAT)
                .Attr("T", DT_INT32)
                .Attr("seed", int64_t{1}),
            {Vec<int32_t>({1048576, 1048576})}, "[1048576,1048576]", "float",
            "4398046511104");
}

TEST_F(MemoryLimitKernelsTest, Range) {
  ExpectOom(TestNode("range", "Range").Inputs(3).Attr("Tidx", DT_INT32),
            {Scalar<int32_t>(0), Scalar<int32_t>(1000000), Scalar<int32_t>(1)},
            "[1000000]", "int32", "4000000");
}

TEST_F(MemoryLimitKernelsTest, Tile) {
  ExpectOom(TestNode("tile", "Tile")
                .Inputs(2)
                .Attr("T", DT_FLOAT)
                .Attr("Tmultiples", DT_INT32),
            {Vec<float>({1, 2}), Vec<int32_t>({1000000})}, "[2000000]", "float",
            "8000000");
}

TEST_F(MemoryLimitKernelsTest, OneHot) {
  ExpectOom(TestNode("onehot", "OneHot")
                .Inputs(4)
                .Attr("T", DT_FLOAT)
                .Attr("TI", DT_INT32)
                .Attr("axis", int64_t{-1}),
            {Vec<int32_t>({0, 1}), Scalar<int32_t>(1000000), Scalar<float>(1),
             Scalar<float>(0)},
            "[2,1000000]", "float", "8000000");
}

TEST_F(MemoryLimitKernelsTest, DynamicStitch) {
  ExpectOom(TestNode("stitch", "DynamicStitch")
                .Inputs(2)
                .Attr("N", int64_t{1})
                .Attr("T", DT_FLOAT),
            {Vec<int32_t>({999999}), Vec<float>({1})}, "[1000000]", "float",
            "4000000");
}

// The value is decoded when the kernel is built, outside any step: the
// error names the node but not the device.
TEST_F(MemoryLimitKernelsTest, ConstWhoseTinyValueDeclaresSixteenGiB) {
  TensorProto value;
  value.set_dtype(DT_FLOAT);
  value.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 32);
  EXPECT_LE(value.ByteSizeLong(), 12u);
  ExpectOom(
      TestNode("big", "Const").Attr("dtype", DT_FLOAT).Attr("value", value), {},
      "[4294967296]", "float", "17179869184", /*names_device=*/false);
}

TEST_F(MemoryLimitKernelsTest, WithinTheBudgetKernelsRunAndReleaseIt) {
  KernelRunner runner;
  runner.set_allocator(&allocator_);
  ASSERT_TRUE(runner
                  .Init(TestNode("fill", "Fill")
                            .Inputs(2)
                            .Attr("T", DT_FLOAT)
                            .Attr("index_type", DT_INT32))
                  .ok());
  ASSERT_TRUE(runner.Run({Vec<int32_t>({100, 100}), Scalar<float>(2)}).ok());
  EXPECT_EQ(runner.output(0).flat<float>()(9999), 2.0f);
  EXPECT_GE(budget_.bytes_in_use(), 40000);
}

}  // namespace
}  // namespace test
}  // namespace stepflow
