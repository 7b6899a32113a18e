// Ref-variable kernels: Variable/VariableV2, Assign, AssignAdd/AssignSub,
// IsVariableInitialized.
#include <string>

#include <gtest/gtest.h>

#include "runtime/framework/refcount.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/variable.h"
#include "runtime/kernels/variable_test_util.h"

namespace stepflow {
namespace test {
namespace {

NodeDef VariableNode(const std::string& name, DataType dtype,
                     const TensorShape& shape,
                     const std::string& op = "VariableV2") {
  return TestNode(name, op).Attr("dtype", dtype).Attr("shape", shape);
}

NodeDef AssignNode(DataType dtype, bool validate_shape = true) {
  return TestNode("assign", "Assign")
      .Inputs(2)
      .Attr("T", dtype)
      .Attr("validate_shape", validate_shape);
}

class VariableOpsTest : public ::testing::Test {
 protected:
  // Runs a Variable node and returns its ref output.
  TensorValue RunVariable(const NodeDef& def) {
    RefKernelRunner runner(&device_);
    absl::Status s = runner.Init(def);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return TensorValue();
    s = runner.Run({});
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(runner.output_is_ref(0));
    return runner.output_ref(0);
  }

  absl::Status Assign(TensorValue ref, const Tensor& value,
                      bool validate_shape = true) {
    RefKernelRunner runner(&device_);
    absl::Status s = runner.Init(AssignNode(value.dtype(), validate_shape));
    if (!s.ok()) return s;
    Tensor v = value;
    s = runner.Run({ref, TensorValue(&v)});
    if (s.ok()) {
      EXPECT_TRUE(runner.output_is_ref(0));
      EXPECT_EQ(runner.output_ref(0).tensor, ref.tensor);
      EXPECT_EQ(runner.output_ref(0).mutex_if_ref, ref.mutex_if_ref);
    }
    return s;
  }

  bool IsInitialized(TensorValue ref, DataType dtype) {
    RefKernelRunner runner(&device_);
    EXPECT_TRUE(runner
                    .Init(TestNode("init?", "IsVariableInitialized")
                              .Inputs(1)
                              .Attr("dtype", dtype))
                    .ok());
    absl::Status s = runner.Run({ref});
    EXPECT_TRUE(s.ok()) << s;
    return runner.output(0).scalar<bool>();
  }

  VariableTestDevice device_;
};

TEST_F(VariableOpsTest, VariableLivesInDefaultContainerUnderNodeName) {
  TensorValue ref = RunVariable(VariableNode("w", DT_FLOAT, TensorShape({2})));
  ASSERT_TRUE(ref.is_ref());
  EXPECT_FALSE(ref.tensor->IsInitialized());
  LegacyVar* var = nullptr;
  ASSERT_TRUE(device_.resource_manager()
                  ->Lookup<LegacyVar>("localhost", "w", &var)
                  .ok());
  ScopedUnref unref(var);
  EXPECT_EQ(var->tensor(), ref.tensor);
  EXPECT_EQ(var->mu(), ref.mutex_if_ref);
  EXPECT_EQ(var->dtype(), DT_FLOAT);
  // Resource variables are a different type: no Var named "w".
  Var* other = nullptr;
  EXPECT_FALSE(
      device_.resource_manager()->Lookup<Var>("localhost", "w", &other).ok());
}

TEST_F(VariableOpsTest, OldVariableOpBehavesLikeV2) {
  TensorValue ref =
      RunVariable(VariableNode("old", DT_INT32, TensorShape({}), "Variable"));
  ASSERT_TRUE(ref.is_ref());
  ASSERT_TRUE(Assign(ref, Scalar<int32_t>(7)).ok());
  EXPECT_EQ(ref.tensor->scalar<int32_t>(), 7);
}

TEST_F(VariableOpsTest, StatePersistsAcrossRunsAndKernels) {
  NodeDef def = VariableNode("w", DT_FLOAT, TensorShape({2}));
  TensorValue first = RunVariable(def);
  ASSERT_TRUE(Assign(first, Vec<float>({1, 2})).ok());
  // A second kernel for the same node (a new executor) finds the same var.
  TensorValue second = RunVariable(def);
  EXPECT_EQ(first.tensor, second.tensor);
  ExpectTensor<float>(*second.tensor, TensorShape({2}), {1, 2});
}

TEST_F(VariableOpsTest, SharedNameAndContainer) {
  NodeDef a = TestNode("a", "VariableV2")
                  .Attr("dtype", DT_FLOAT)
                  .Attr("shape", TensorShape({}))
                  .Attr("shared_name", std::string("shared"))
                  .Attr("container", std::string("box"));
  NodeDef b = a;
  b.set_name("b");
  TensorValue ra = RunVariable(a);
  TensorValue rb = RunVariable(b);
  EXPECT_EQ(ra.tensor, rb.tensor);
  LegacyVar* var = nullptr;
  ASSERT_TRUE(device_.resource_manager()
                  ->Lookup<LegacyVar>("box", "shared", &var)
                  .ok());
  var->Unref();
  EXPECT_FALSE(device_.resource_manager()
                   ->Lookup<LegacyVar>("localhost", "a", &var)
                   .ok());
}

TEST_F(VariableOpsTest, CleanupGivesAFreshUninitializedVariable) {
  NodeDef def = VariableNode("w", DT_FLOAT, TensorShape({}));
  ASSERT_TRUE(Assign(RunVariable(def), Scalar<float>(3)).ok());
  ASSERT_TRUE(device_.resource_manager()->Cleanup("localhost").ok());
  TensorValue fresh = RunVariable(def);
  EXPECT_FALSE(fresh.tensor->IsInitialized());
  EXPECT_FALSE(IsInitialized(fresh, DT_FLOAT));
}

TEST_F(VariableOpsTest, InvalidContainerNameIsInvalidArgument) {
  RefKernelRunner runner(&device_);
  absl::Status s = runner.Init(TestNode("w", "VariableV2")
                                   .Attr("dtype", DT_FLOAT)
                                   .Attr("shape", TensorShape({}))
                                   .Attr("container", std::string("_bad")));
  ExpectError(s, absl::StatusCode::kInvalidArgument, {"container", "_bad"});
}

TEST_F(VariableOpsTest, SharedVariableWithOtherDtypeIsInvalidArgument) {
  RunVariable(TestNode("a", "VariableV2")
                  .Attr("dtype", DT_FLOAT)
                  .Attr("shape", TensorShape({}))
                  .Attr("shared_name", std::string("s")));
  RefKernelRunner runner(&device_);
  ASSERT_TRUE(runner
                  .Init(TestNode("b", "VariableV2")
                            .Attr("dtype", DT_INT32)
                            .Attr("shape", TensorShape({}))
                            .Attr("shared_name", std::string("s")))
                  .ok());
  ExpectError(runner.Run({}), absl::StatusCode::kInvalidArgument,
              {"{{node b}}", "float", "int32"});
}

TEST_F(VariableOpsTest, IsVariableInitialized) {
  TensorValue ref = RunVariable(VariableNode("w", DT_FLOAT, TensorShape({})));
  EXPECT_FALSE(IsInitialized(ref, DT_FLOAT));
  ASSERT_TRUE(Assign(ref, Scalar<float>(1)).ok());
  EXPECT_TRUE(IsInitialized(ref, DT_FLOAT));
}

TEST_F(VariableOpsTest, AssignSameShapeWritesInPlace) {
  TestRefVar var(Vec<float>({1, 2, 3}));
  Tensor earlier_read = var.tensor;  // Shares the buffer, like Identity(w).
  ASSERT_TRUE(Assign(var.ref(), Vec<float>({4, 5, 6})).ok());
  EXPECT_TRUE(var.tensor.SharesBufferWith(earlier_read));
  ExpectTensor<float>(earlier_read, TensorShape({3}), {4, 5, 6});
}

TEST_F(VariableOpsTest, AssignShapeMismatch) {
  TestRefVar var(Vec<float>({1, 2, 3}));
  ExpectError(Assign(var.ref(), Vec<float>({1, 2})),
              absl::StatusCode::kInvalidArgument,
              {"Assign requires shapes", "[3]", "[2]", "{{node assign}}"});
  ExpectTensor<float>(var.tensor, TensorShape({3}), {1, 2, 3});
  // validate_shape=false replaces the value (and its shape).
  Tensor value = Vec<float>({8, 9});
  ASSERT_TRUE(Assign(var.ref(), value, /*validate_shape=*/false).ok());
  ExpectTensor<float>(var.tensor, TensorShape({2}), {8, 9});
}

TEST_F(VariableOpsTest, FirstAssignCopiesTheValue) {
  TestRefVar var;
  Tensor value = Vec<std::string>({"a", "b"});
  ASSERT_TRUE(Assign(var.ref(), value).ok());
  ExpectTensor<std::string>(var.tensor, TensorShape({2}), {"a", "b"});
  EXPECT_FALSE(var.tensor.SharesBufferWith(value));
}

TEST_F(VariableOpsTest, AssignAddAndSub) {
  TestRefVar var(Vec<int32_t>({10, 20}));
  RefKernelRunner add(&device_);
  ASSERT_TRUE(
      add.Init(TestNode("add", "AssignAdd").Inputs(2).Attr("T", DT_INT32))
          .ok());
  Tensor delta = Vec<int32_t>({1, 2});
  ASSERT_TRUE(add.Run({var.ref(), TensorValue(&delta)}).ok());
  EXPECT_TRUE(add.output_is_ref(0));
  EXPECT_EQ(add.output_ref(0).tensor, &var.tensor);
  ExpectTensor<int32_t>(var.tensor, TensorShape({2}), {11, 22});

  RefKernelRunner sub(&device_);
  ASSERT_TRUE(
      sub.Init(TestNode("sub", "AssignSub").Inputs(2).Attr("T", DT_INT32))
          .ok());
  ASSERT_TRUE(sub.Run({var.ref(), TensorValue(&delta)}).ok());
  ASSERT_TRUE(sub.Run({var.ref(), TensorValue(&delta)}).ok());
  ExpectTensor<int32_t>(var.tensor, TensorShape({2}), {9, 18});
}

TEST_F(VariableOpsTest, AssignAddHalf) {
  TestRefVar var(Vec<half>({half(1.5f)}));
  RefKernelRunner add(&device_);
  ASSERT_TRUE(
      add.Init(TestNode("add", "AssignAdd").Inputs(2).Attr("T", DT_HALF)).ok());
  Tensor delta = Vec<half>({half(0.25f)});
  ASSERT_TRUE(add.Run({var.ref(), TensorValue(&delta)}).ok());
  EXPECT_EQ(static_cast<float>(var.tensor.flat<half>()(0)), 1.75f);
}

TEST_F(VariableOpsTest, AssignAddErrors) {
  RefKernelRunner add(&device_);
  ASSERT_TRUE(
      add.Init(TestNode("add", "AssignAdd").Inputs(2).Attr("T", DT_FLOAT))
          .ok());
  TestRefVar uninit;
  Tensor delta = Vec<float>({1});
  ExpectError(add.Run({uninit.ref(), TensorValue(&delta)}),
              absl::StatusCode::kFailedPrecondition,
              {"uninitialized", "add_in0", "{{node add}}"});
  TestRefVar var(Vec<float>({1, 2}));
  ExpectError(add.Run({var.ref(), TensorValue(&delta)}),
              absl::StatusCode::kInvalidArgument,
              {"same shape", "[2]", "[1]", "{{node add}}"});
  ExpectTensor<float>(var.tensor, TensorShape({2}), {1, 2});
}

TEST_F(VariableOpsTest, NoAssignAddForStrings) {
  RefKernelRunner add(&device_);
  EXPECT_FALSE(
      add.Init(TestNode("add", "AssignAdd").Inputs(2).Attr("T", DT_STRING))
          .ok());
}

}  // namespace
}  // namespace test
}  // namespace stepflow
