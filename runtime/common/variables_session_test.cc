// Variables, optimizers and random ops through DirectSession: state across
// Runs, Reset, uninitialized reads, a variable pinned on another device,
// and small training loops.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::ParseGraphDefOrFail;
using test::PlaceholderNode;

std::string Device(const std::string& device) {
  return device.empty() ? "" : absl::StrCat(" device: '", device, "'");
}

std::string Variable(const std::string& name, const std::string& shape_dims,
                     const std::string& device = "",
                     const std::string& container = "") {
  return absl::StrCat(
      "node { name: '", name, "' op: 'VariableV2'", Device(device),
      " attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'shape' value { shape { ",
      shape_dims, " } } }", " attr { key: 'container' value { s: '", container,
      "' } } }\n");
}

std::string ConstScalar(const std::string& name, float v,
                        const std::string& device = "") {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const'", Device(device),
      " attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
      "float_val: ",
      v, " } } } }\n");
}

std::string ConstInt32Vec(const std::string& name,
                          const std::vector<int>& values,
                          const std::string& device = "") {
  std::string vals;
  for (int v : values) absl::StrAppend(&vals, " int_val: ", v);
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const'", Device(device),
      " attr { key: 'dtype' value { type: DT_INT32 } }"
      " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { "
      "dim { size: ",
      values.size(), " } }", vals, " } } } }\n");
}

// An op with float inputs and attr T=float.
std::string Op(const std::string& op, const std::string& name,
               const std::vector<std::string>& inputs,
               const std::string& device = "", const std::string& extra = "") {
  std::string in;
  for (const auto& i : inputs) absl::StrAppend(&in, " input: '", i, "'");
  return absl::StrCat(
      "node { name: '", name, "' op: '", op, "'", in, Device(device),
      " attr { key: 'T' value { type: DT_FLOAT } }", extra, " }\n");
}

std::string Target(const std::string& name,
                   const std::vector<std::string>& control_inputs) {
  std::string in;
  for (const auto& i : control_inputs)
    absl::StrAppend(&in, " input: '^", i, "'");
  return absl::StrCat("node { name: '", name, "' op: 'NoOp'", in, " }\n");
}

Tensor FloatVec(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
  return t;
}

std::vector<float> Floats(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  if (t.dtype() != DT_FLOAT) return {};
  return std::vector<float>(t.base<float>(), t.base<float>() + t.NumElements());
}

class VariablesSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewLocalSession(int cpus = 1) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = cpus;
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  // Fetches `names` (values copied out: a fetched variable shares its
  // buffer, which later updates change in place).
  std::vector<std::vector<float>> Fetch(Session* s,
                                        const std::vector<std::string>& names,
                                        const Session::FeedList& feeds = {}) {
    std::vector<Tensor> out;
    absl::Status st = s->Run(feeds, names, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
    std::vector<std::vector<float>> values;
    for (const Tensor& t : out) values.push_back(Floats(t));
    return values;
  }

  absl::Status RunTarget(Session* s, const std::string& target,
                         const Session::FeedList& feeds = {}) {
    std::vector<Tensor> out;
    return s->Run(feeds, {}, {target}, &out);
  }

  // w (float[2]) = [1, 2] by `init`; r = Identity(w); inc = AssignAdd(w, 1s).
  GraphDef CounterGraph(const std::string& container = "") {
    return ParseGraphDefOrFail(
        Variable("w", "dim { size: 2 }", "", container) +
        "node { name: 'init_value' op: 'Const' attr { key: 'dtype' value { "
        "type: DT_FLOAT } } attr { key: 'value' value { tensor { dtype: "
        "DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 "
        "} } } }\n" +
        Op("Assign", "init", {"w", "init_value"}) + Op("Identity", "r", {"w"}) +
        "node { name: 'ones' op: 'Const' attr { key: 'dtype' value { type: "
        "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT "
        "tensor_shape { dim { size: 2 } } float_val: 1 } } } }\n" +
        Op("AssignAdd", "inc", {"w", "ones"}) +
        "node { name: 'is_init' op: 'IsVariableInitialized' input: 'w' attr "
        "{ key: 'dtype' value { type: DT_FLOAT } } }\n");
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(VariablesSessionTest, InitAssignRead) {
  auto s = NewLocalSession();
  ASSERT_TRUE(s->Create(CounterGraph()).ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  auto v = Fetch(s.get(), {"r", "w", "init"});
  EXPECT_EQ(v[0], (std::vector<float>{1, 2}));
  EXPECT_EQ(v[1], (std::vector<float>{1, 2}));  // A fetched ref is read.
  EXPECT_EQ(v[2], (std::vector<float>{1, 2}));
}

TEST_F(VariablesSessionTest, StatePersistsAcrossRuns) {
  auto s = NewLocalSession();
  ASSERT_TRUE(s->Create(CounterGraph()).ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(Fetch(s.get(), {"inc"})[0],
              (std::vector<float>{1.0f + i, 2.0f + i}));
  }
  EXPECT_EQ(Fetch(s.get(), {"r"})[0], (std::vector<float>{4, 5}));
  // Re-initializing overwrites.
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  EXPECT_EQ(Fetch(s.get(), {"r"})[0], (std::vector<float>{1, 2}));
}

TEST_F(VariablesSessionTest, UninitializedReadIsFailedPreconditionNamingIt) {
  auto s = NewLocalSession();
  ASSERT_TRUE(s->Create(CounterGraph()).ok());
  std::vector<Tensor> out;
  for (const char* fetch : {"r", "w", "inc"}) {
    absl::Status st = s->Run({}, {fetch}, {}, &out);
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition)
        << fetch << ": " << st;
    EXPECT_TRUE(absl::StrContains(st.message(),
                                  "Attempting to use uninitialized value w"))
        << st;
  }
  // IsVariableInitialized may look at it.
  ASSERT_TRUE(s->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_FALSE(out[0].scalar<bool>());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  ASSERT_TRUE(s->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_TRUE(out[0].scalar<bool>());
}

TEST_F(VariablesSessionTest, ResetClearsVariables) {
  auto s = NewLocalSession();
  ASSERT_TRUE(s->Create(CounterGraph()).ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  ASSERT_TRUE(s->Reset({}).ok());
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"r"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "uninitialized value w")) << st;
  // A fresh variable can be initialized again.
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  EXPECT_EQ(Fetch(s.get(), {"r"})[0], (std::vector<float>{1, 2}));
}

TEST_F(VariablesSessionTest, ResetNamedContainerOnly) {
  auto s = NewLocalSession();
  ASSERT_TRUE(s->Create(CounterGraph("box")).ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  ASSERT_TRUE(s->Reset({}).ok());  // Default container: not ours.
  EXPECT_EQ(Fetch(s.get(), {"r"})[0], (std::vector<float>{1, 2}));
  ASSERT_TRUE(s->Reset({"box"}).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(s->Run({}, {"r"}, {}, &out).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(VariablesSessionTest, UpdateOnUninitializedVariableNamesIt) {
  auto s = NewLocalSession();
  ASSERT_TRUE(
      s->Create(ParseGraphDefOrFail(
                    Variable("v", "") + ConstScalar("lr", 0.1f) +
                    ConstScalar("g", 1.0f) +
                    Op("ApplyGradientDescent", "sgd", {"v", "lr", "g"})))
          .ok());
  absl::Status st = RunTarget(s.get(), "sgd");
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "uninitialized value v")) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "{{node sgd}}")) << st;
}

// w lives on CPU:1 (its Assign follows it over the ref edge); the math that
// reads it runs on CPU:0.
TEST_F(VariablesSessionTest, VariableOnCpu1MathOnCpu0) {
  auto s = NewLocalSession(2);
  ASSERT_TRUE(
      s->Create(ParseGraphDefOrFail(Variable("w", "", "/cpu:1") +
                                    ConstScalar("three", 3, "/cpu:0") +
                                    Op("Assign", "init", {"w", "three"}) +
                                    PlaceholderNode("x") +
                                    Op("Mul", "y", {"w", "x"}, "/cpu:0") +
                                    ConstScalar("one", 1, "/cpu:0") +
                                    Op("AssignAdd", "inc", {"w", "one"})))
          .ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  RunOptions opts;
  opts.set_output_partition_graphs(true);
  RunMetadata meta;
  std::vector<Tensor> out;
  Tensor x(DT_FLOAT, TensorShape({}));
  x.scalar<float>() = 2;
  ASSERT_TRUE(s->Run(opts, {{"x", x}}, {"y"}, {}, &out, &meta).ok());
  EXPECT_EQ(out[0].scalar<float>(), 6);
  // Where each node ran.
  std::map<std::string, std::string> placed;
  for (const GraphDef& p : meta.partition_graphs()) {
    for (const NodeDef& n : p.node()) placed[n.name()] = n.device();
  }
  EXPECT_TRUE(absl::StrContains(placed["w"], "CPU:1")) << placed["w"];
  EXPECT_TRUE(absl::StrContains(placed["y"], "CPU:0")) << placed["y"];
  EXPECT_EQ(meta.partition_graphs_size(), 2);

  // Updates (colocated with w on CPU:1) are seen by the CPU:0 reader.
  ASSERT_TRUE(RunTarget(s.get(), "inc").ok());
  ASSERT_TRUE(s->Run(opts, {{"x", x}}, {"y", "inc"}, {}, &out, &meta).ok());
  EXPECT_EQ(out[1].scalar<float>(), 5);
  placed.clear();
  for (const GraphDef& p : meta.partition_graphs()) {
    for (const NodeDef& n : p.node()) placed[n.name()] = n.device();
  }
  EXPECT_TRUE(absl::StrContains(placed["inc"], "CPU:1")) << placed["inc"];
}

// Reading the variable across devices before it is initialized fails on its
// own device, naming it.
TEST_F(VariablesSessionTest, UninitializedCrossDeviceReadNamesVariable) {
  auto s = NewLocalSession(2);
  ASSERT_TRUE(s->Create(ParseGraphDefOrFail(
                            Variable("w", "", "/cpu:1") + PlaceholderNode("x") +
                            Op("Mul", "y", {"w", "x"}, "/cpu:0")))
                  .ok());
  Tensor x(DT_FLOAT, TensorShape({}));
  std::vector<Tensor> out;
  absl::Status st = s->Run({{"x", x}}, {"y"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "uninitialized value w")) << st;
}

// y = w * x + b fitted to y = 0.1 x + 0.3 with hand-written gradients of
// the mean squared error, updated by ApplyGradientDescent.
std::string LinearRegressionGraph(const std::string& var_device,
                                  const std::string& math_device) {
  const std::string d = math_device;
  return Variable("w", "", var_device) + Variable("b", "", var_device) +
         // w starts uniform in [-1, 1) (seeded), b at 0.
         ConstInt32Vec("shape", {}, d) +
         "node { name: 'u' op: 'RandomUniform' input: 'shape'" + Device(d) +
         " attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'T' "
         "value { type: DT_INT32 } } attr { key: 'seed' value { i: 17 } } }\n" +
         ConstScalar("two", 2, d) + ConstScalar("one", 1, d) +
         Op("Mul", "u2", {"u", "two"}, d) + Op("Sub", "w0", {"u2", "one"}, d) +
         Op("Assign", "w_init", {"w", "w0"}) + ConstScalar("zero", 0, d) +
         Op("Assign", "b_init", {"b", "zero"}) +
         Target("init", {"w_init", "b_init"}) + PlaceholderNode("x") +
         PlaceholderNode("y") + Op("Mul", "wx", {"w", "x"}, d) +
         Op("AddV2", "pred", {"wx", "b"}, d) +
         Op("Sub", "err", {"pred", "y"}, d) + ConstInt32Vec("axis", {0}, d) +
         Op("Mul", "err_x", {"err", "x"}, d) +
         Op("Mean", "mean_err_x", {"err_x", "axis"}, d,
            " attr { key: 'Tidx' value { type: DT_INT32 } }") +
         Op("Mean", "mean_err", {"err", "axis"}, d,
            " attr { key: 'Tidx' value { type: DT_INT32 } }") +
         Op("Mul", "grad_w", {"mean_err_x", "two"}, d) +
         Op("Mul", "grad_b", {"mean_err", "two"}, d) +
         ConstScalar("lr", 0.5f, d) +
         Op("ApplyGradientDescent", "update_w", {"w", "lr", "grad_w"}) +
         Op("ApplyGradientDescent", "update_b", {"b", "lr", "grad_b"}) +
         Target("train", {"update_w", "update_b"});
}

Session::FeedList TrainingData() {
  std::vector<float> xs, ys;
  for (int i = 0; i < 100; ++i) {
    xs.push_back(i / 100.0f);
    ys.push_back(0.1f * xs.back() + 0.3f);
  }
  return {{"x", FloatVec(xs)}, {"y", FloatVec(ys)}};
}

class LinearRegressionTest : public VariablesSessionTest,
                             public ::testing::WithParamInterface<
                                 std::pair<std::string, std::string>> {};

TEST_P(LinearRegressionTest, Converges) {
  const auto& [var_device, math_device] = GetParam();
  auto s = NewLocalSession(2);
  ASSERT_TRUE(s->Create(ParseGraphDefOrFail(
                            LinearRegressionGraph(var_device, math_device)))
                  .ok());
  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  const float w0 = Fetch(s.get(), {"w"})[0][0];
  EXPECT_GE(w0, -1.0f);
  EXPECT_LT(w0, 1.0f);
  const Session::FeedList data = TrainingData();
  for (int step = 0; step < 2000; ++step) {
    absl::Status st = RunTarget(s.get(), "train", data);
    ASSERT_TRUE(st.ok()) << "step " << step << ": " << st;
  }
  auto v = Fetch(s.get(), {"w", "b"});
  EXPECT_NEAR(v[0][0], 0.1f, 1e-3);
  EXPECT_NEAR(v[1][0], 0.3f, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Placements, LinearRegressionTest,
    ::testing::Values(std::make_pair(std::string(""), std::string("")),
                      std::make_pair(std::string("/cpu:1"),
                                     std::string("/cpu:0"))));

TEST_F(VariablesSessionTest, SeededRandomIsReproducibleAndAdvancesPerRun) {
  const std::string g =
      ConstInt32Vec("shape", {4}) +
      "node { name: 'u' op: 'RandomUniform' input: 'shape' attr { key: "
      "'dtype' value { type: DT_FLOAT } } attr { key: 'T' value { type: "
      "DT_INT32 } } attr { key: 'seed' value { i: 5 } } attr { key: 'seed2' "
      "value { i: 6 } } }\n";
  auto s1 = NewLocalSession();
  auto s2 = NewLocalSession();
  ASSERT_TRUE(s1->Create(ParseGraphDefOrFail(g)).ok());
  ASSERT_TRUE(s2->Create(ParseGraphDefOrFail(g)).ok());
  auto a1 = Fetch(s1.get(), {"u"})[0];
  auto a2 = Fetch(s1.get(), {"u"})[0];
  auto b1 = Fetch(s2.get(), {"u"})[0];
  auto b2 = Fetch(s2.get(), {"u"})[0];
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  EXPECT_NE(a1, a2);
}

// Resource variables: handle on CPU:1, all users colocated by the resource
// edges; a read feeds math on CPU:0.
TEST_F(VariablesSessionTest, ResourceVariableTraining) {
  auto s = NewLocalSession(2);
  const std::string handle =
      "node { name: 'v' op: 'VarHandleOp' device: '/cpu:1' attr { key: "
      "'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape "
      "{} } } attr { key: 'shared_name' value { s: 'v' } } }\n";
  const std::string dtype = " attr { key: 'dtype' value { type: DT_FLOAT } }";
  ASSERT_TRUE(
      s
          ->Create(ParseGraphDefOrFail(
              handle + ConstScalar("ten", 10) +
              "node { name: 'init' op: 'AssignVariableOp' input: 'v' "
              "input: 'ten'" +
              dtype + " }\n" +
              "node { name: 'read' op: 'ReadVariableOp' input: 'v'" + dtype +
              " }\n" + Op("Mul", "double", {"read", "two"}, "/cpu:0") +
              ConstScalar("two", 2, "/cpu:0") + ConstScalar("lr", 0.5f) +
              // d/dv (v^2 / 2) = v: v <- v - 0.5 v.
              "node { name: 'step' op: 'ResourceApplyGradientDescent' "
              "input: 'v' input: 'lr' input: 'read' attr { key: 'T' "
              "value { type: DT_FLOAT } } }\n" +
              "node { name: 'is_init' op: 'VarIsInitializedOp' input: "
              "'v' }\n"))
          .ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_FALSE(out[0].scalar<bool>());
  absl::Status st = s->Run({}, {"double"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "v")) << st;

  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  EXPECT_EQ(Fetch(s.get(), {"double"})[0], (std::vector<float>{20}));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(RunTarget(s.get(), "step").ok());
  EXPECT_EQ(Fetch(s.get(), {"read"})[0], (std::vector<float>{1.25f}));
  ASSERT_TRUE(s->Reset({}).ok());
  EXPECT_EQ(s->Run({}, {"read"}, {}, &out).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace stepflow
