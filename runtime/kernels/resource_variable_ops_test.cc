// Resource-variable kernels: VarHandleOp, ReadVariableOp, AssignVariableOp,
// AssignAdd/AssignSubVariableOp, VarIsInitializedOp, DestroyResourceOp.
#include <string>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/variable.h"
#include "runtime/kernels/variable_test_util.h"

namespace stepflow {
namespace test {
namespace {

class ResourceVariableOpsTest : public ::testing::Test {
 protected:
  absl::Status RunOp(const NodeDef& def, const std::vector<Tensor>& inputs,
                     Tensor* out = nullptr) {
    RefKernelRunner runner(&device_);
    absl::Status s = runner.Init(def);
    if (!s.ok()) return s;
    s = runner.RunValues(inputs);
    if (s.ok() && out != nullptr) *out = runner.output(0);
    return s;
  }

  absl::Status AssignVar(const Tensor& handle, const Tensor& value,
                         bool validate_shape = false) {
    return RunOp(TestNode("assign", "AssignVariableOp")
                     .Inputs(2)
                     .Attr("dtype", value.dtype())
                     .Attr("validate_shape", validate_shape),
                 {handle, value});
  }

  absl::Status ReadVar(const Tensor& handle, DataType dtype, Tensor* out) {
    return RunOp(
        TestNode("read", "ReadVariableOp").Inputs(1).Attr("dtype", dtype),
        {handle}, out);
  }

  bool IsInitialized(const Tensor& handle) {
    Tensor out;
    absl::Status s = RunOp(TestNode("init?", "VarIsInitializedOp").Inputs(1),
                           {handle}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() && out.scalar<bool>();
  }

  absl::Status Update(const std::string& op, const Tensor& handle,
                      const Tensor& value) {
    return RunOp(TestNode("update", op).Inputs(2).Attr("dtype", value.dtype()),
                 {handle, value});
  }

  VariableTestDevice device_;
};

TEST_F(ResourceVariableOpsTest, VarHandleDescribesTheVariable) {
  Tensor h;
  ASSERT_TRUE(RunOp(TestNode("v", "VarHandleOp")
                        .Attr("dtype", DT_FLOAT)
                        .Attr("shape", TensorShape({2, 3}))
                        .Attr("shared_name", std::string("weights")),
                    {}, &h)
                  .ok());
  ASSERT_EQ(h.dtype(), DT_RESOURCE);
  ASSERT_EQ(h.dims(), 0);
  const ResourceHandleProto& p = h.scalar<ResourceHandleProto>();
  EXPECT_EQ(p.device(), device_.name());
  EXPECT_EQ(p.container(), "localhost");
  EXPECT_EQ(p.name(), "weights");
  EXPECT_EQ(p.hash_code(), VarTypeHashCode());
  ASSERT_EQ(p.dtypes_and_shapes_size(), 1);
  EXPECT_EQ(p.dtypes_and_shapes(0).dtype(), DT_FLOAT);
  ASSERT_EQ(p.dtypes_and_shapes(0).shape().dim_size(), 2);
  EXPECT_EQ(p.dtypes_and_shapes(0).shape().dim(1).size(), 3);

  // Without shared_name the node name is used; container attr is honoured.
  ASSERT_TRUE(RunOp(TestNode("v2", "VarHandleOp")
                        .Attr("dtype", DT_INT32)
                        .Attr("shape", TensorShape({}))
                        .Attr("container", std::string("c1")),
                    {}, &h)
                  .ok());
  EXPECT_EQ(h.scalar<ResourceHandleProto>().name(), "v2");
  EXPECT_EQ(h.scalar<ResourceHandleProto>().container(), "c1");
}

TEST_F(ResourceVariableOpsTest, AssignThenRead) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  EXPECT_FALSE(IsInitialized(h));
  ASSERT_TRUE(AssignVar(h, Vec<float>({1, 2})).ok());
  EXPECT_TRUE(IsInitialized(h));
  Tensor value;
  ASSERT_TRUE(ReadVar(h, DT_FLOAT, &value).ok());
  ExpectTensor<float>(value, TensorShape({2}), {1, 2});
}

TEST_F(ResourceVariableOpsTest, ReadMissingVariableIsFailedPrecondition) {
  Tensor h = VarHandle(&device_, "ghost", DT_FLOAT);
  Tensor value;
  ExpectError(ReadVar(h, DT_FLOAT, &value),
              absl::StatusCode::kFailedPrecondition,
              {"ghost", "{{node read}}"});
}

TEST_F(ResourceVariableOpsTest, DtypeMismatches) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  ASSERT_TRUE(AssignVar(h, Scalar<float>(1)).ok());
  Tensor value;
  ExpectError(ReadVar(h, DT_INT32, &value), absl::StatusCode::kInvalidArgument,
              {"wrong dtype", "float", "int32", "{{node read}}"});
  ExpectError(AssignVar(h, Scalar<int32_t>(1)),
              absl::StatusCode::kInvalidArgument,
              {"wrong dtype", "float", "int32"});
  ExpectError(Update("AssignAddVariableOp", h, Scalar<double>(1)),
              absl::StatusCode::kInvalidArgument, {"v", "float", "double"});
}

TEST_F(ResourceVariableOpsTest, AssignShapeValidation) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  ASSERT_TRUE(AssignVar(h, Vec<float>({1, 2})).ok());
  ExpectError(AssignVar(h, Vec<float>({1, 2, 3}), /*validate_shape=*/true),
              absl::StatusCode::kInvalidArgument,
              {"wrong shape", "[2]", "[3]", "{{node assign}}"});
  ASSERT_TRUE(AssignVar(h, Vec<float>({1, 2, 3})).ok());
  Tensor value;
  ASSERT_TRUE(ReadVar(h, DT_FLOAT, &value).ok());
  ExpectTensor<float>(value, TensorShape({3}), {1, 2, 3});
}

TEST_F(ResourceVariableOpsTest, AssignAddSubAndSnapshots) {
  Tensor h = VarHandle(&device_, "v", DT_INT64);
  ASSERT_TRUE(AssignVar(h, Vec<int64_t>({10, 20})).ok());
  Tensor before;
  ASSERT_TRUE(ReadVar(h, DT_INT64, &before).ok());
  ASSERT_TRUE(Update("AssignAddVariableOp", h, Vec<int64_t>({1, 2})).ok());
  ASSERT_TRUE(Update("AssignSubVariableOp", h, Vec<int64_t>({5, 5})).ok());
  Tensor after;
  ASSERT_TRUE(ReadVar(h, DT_INT64, &after).ok());
  ExpectTensor<int64_t>(after, TensorShape({2}), {6, 17});
  // The earlier read is a snapshot: updates copied the shared buffer.
  ExpectTensor<int64_t>(before, TensorShape({2}), {10, 20});
}

TEST_F(ResourceVariableOpsTest, AssignUpdateErrors) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  // A variable that does not exist: NotFound, as in TensorFlow.
  ExpectError(Update("AssignAddVariableOp", h, Scalar<float>(1)),
              absl::StatusCode::kNotFound, {"v", "{{node update}}"});
  ASSERT_TRUE(AssignVar(h, Vec<float>({1, 2})).ok());
  ExpectError(Update("AssignSubVariableOp", h, Vec<float>({1})),
              absl::StatusCode::kInvalidArgument,
              {"shapes must be equal", "[2]", "[1]", "{{node update}}"});
}

TEST_F(ResourceVariableOpsTest, HandleFromAnotherDeviceIsInvalidArgument) {
  VariableTestDevice other("/job:localhost/replica:0/task:0/device:CPU:1");
  Tensor h = VarHandle(&other, "v", DT_FLOAT);
  ExpectError(AssignVar(h, Scalar<float>(1)),
              absl::StatusCode::kInvalidArgument,
              {"device:CPU:1", "device:CPU:0", "v"});
}

TEST_F(ResourceVariableOpsTest, NonHandleInputIsInvalidArgument) {
  Tensor value;
  ExpectError(ReadVar(Vec<float>({1}), DT_FLOAT, &value),
              absl::StatusCode::kInvalidArgument, {"resource handle"});
  Tensor two(DT_RESOURCE, TensorShape({2}));
  ExpectError(ReadVar(two, DT_FLOAT, &value),
              absl::StatusCode::kInvalidArgument, {"scalar", "[2]"});
}

TEST_F(ResourceVariableOpsTest, Destroy) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  ASSERT_TRUE(AssignVar(h, Scalar<float>(1)).ok());
  NodeDef destroy = TestNode("destroy", "DestroyResourceOp").Inputs(1);
  ASSERT_TRUE(RunOp(destroy, {h}).ok());
  EXPECT_FALSE(IsInitialized(h));
  Tensor value;
  EXPECT_EQ(ReadVar(h, DT_FLOAT, &value).code(),
            absl::StatusCode::kFailedPrecondition);
  // Ignored by default; NotFound when asked.
  EXPECT_TRUE(RunOp(destroy, {h}).ok());
  NodeDef strict = TestNode("destroy", "DestroyResourceOp")
                       .Inputs(1)
                       .Attr("ignore_lookup_error", false);
  ExpectError(RunOp(strict, {h}), absl::StatusCode::kNotFound,
              {"v", "{{node destroy}}"});
}

TEST_F(ResourceVariableOpsTest, ResetContainerForgetsTheVariable) {
  Tensor h = VarHandle(&device_, "v", DT_FLOAT);
  ASSERT_TRUE(AssignVar(h, Scalar<float>(1)).ok());
  ASSERT_TRUE(device_.resource_manager()->Cleanup("localhost").ok());
  Tensor value;
  EXPECT_EQ(ReadVar(h, DT_FLOAT, &value).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace test
}  // namespace stepflow
