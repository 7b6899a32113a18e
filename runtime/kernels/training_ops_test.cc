// Optimizer kernels (ref and resource forms) against hand-computed updates.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/variable.h"
#include "runtime/kernels/variable_test_util.h"

namespace stepflow {
namespace test {
namespace {

NodeDef Apply(const std::string& op, int inputs, DataType t,
              bool nesterov = false) {
  TestNode n("apply", op);
  n.Inputs(inputs).Attr("T", t);
  if (op.find("GradientDescent") == std::string::npos) {
    n.Attr("use_nesterov", nesterov);
  }
  return n;
}

TEST(TrainingOpsTest, GradientDescentFloat) {
  TestRefVar var(Vec<float>({1, 2, 3}));
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyGradientDescent", 3, DT_FLOAT)).ok());
  Tensor alpha = Scalar<float>(0.5f), delta = Vec<float>({2, 4, -2});
  ASSERT_TRUE(
      r.Run({var.ref(), TensorValue(&alpha), TensorValue(&delta)}).ok());
  ExpectTensorNear<float>(var.tensor, TensorShape({3}), {0, 0, 4}, 1e-6);
  // The updated ref is forwarded.
  ASSERT_TRUE(r.output_is_ref(0));
  EXPECT_EQ(r.output_ref(0).tensor, &var.tensor);
}

TEST(TrainingOpsTest, GradientDescentDoubleAndHalf) {
  TestRefVar d(Vec<double>({1}));
  RefKernelRunner rd;
  ASSERT_TRUE(rd.Init(Apply("ApplyGradientDescent", 3, DT_DOUBLE)).ok());
  Tensor ad = Scalar<double>(0.1), gd = Vec<double>({3});
  ASSERT_TRUE(rd.Run({d.ref(), TensorValue(&ad), TensorValue(&gd)}).ok());
  EXPECT_DOUBLE_EQ(d.tensor.flat<double>()(0), 1 - 0.1 * 3);

  TestRefVar h(Vec<half>({half(1.0f)}));
  RefKernelRunner rh;
  ASSERT_TRUE(rh.Init(Apply("ApplyGradientDescent", 3, DT_HALF)).ok());
  Tensor ah = Scalar<half>(half(0.5f)), gh = Vec<half>({half(1.0f)});
  ASSERT_TRUE(rh.Run({h.ref(), TensorValue(&ah), TensorValue(&gh)}).ok());
  EXPECT_EQ(static_cast<float>(h.tensor.flat<half>()(0)), 0.5f);
}

TEST(TrainingOpsTest, GradientDescentErrors) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyGradientDescent", 3, DT_FLOAT)).ok());
  TestRefVar var(Vec<float>({1, 2}));
  Tensor alpha = Scalar<float>(0.1f), bad_alpha = Vec<float>({0.1f});
  Tensor delta = Vec<float>({1, 1}), bad_delta = Vec<float>({1, 1, 1});
  ExpectError(r.Run({var.ref(), TensorValue(&bad_alpha), TensorValue(&delta)}),
              absl::StatusCode::kInvalidArgument,
              {"alpha is not a scalar", "{{node apply}}"});
  ExpectError(r.Run({var.ref(), TensorValue(&alpha), TensorValue(&bad_delta)}),
              absl::StatusCode::kInvalidArgument,
              {"var and delta do not have the same shape", "[2]", "[3]",
               "{{node apply}}"});
  ExpectTensor<float>(var.tensor, TensorShape({2}), {1, 2});
  TestRefVar uninit;
  ExpectError(r.Run({uninit.ref(), TensorValue(&alpha), TensorValue(&delta)}),
              absl::StatusCode::kFailedPrecondition,
              {"uninitialized", "apply_in0", "{{node apply}}"});
}

TEST(TrainingOpsTest, OnlyFloatingPointKernels) {
  RefKernelRunner r;
  EXPECT_FALSE(r.Init(Apply("ApplyGradientDescent", 3, DT_INT32)).ok());
}

// Reference momentum over `steps` steps, per element.
void MomentumReference(std::vector<double>* var, std::vector<double>* accum,
                       double lr, const std::vector<double>& grad,
                       double momentum, bool nesterov) {
  for (size_t i = 0; i < var->size(); ++i) {
    (*accum)[i] = (*accum)[i] * momentum + grad[i];
    if (nesterov) {
      (*var)[i] -= grad[i] * lr + (*accum)[i] * momentum * lr;
    } else {
      (*var)[i] -= (*accum)[i] * lr;
    }
  }
}

class MomentumTest : public ::testing::TestWithParam<bool> {};

TEST_P(MomentumTest, MatchesReferenceOverSteps) {
  const bool nesterov = GetParam();
  TestRefVar var(Vec<float>({1, -2}));
  TestRefVar accum(Vec<float>({0, 0.5f}));
  std::vector<double> rv = {1, -2}, ra = {0, 0.5};
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyMomentum", 5, DT_FLOAT, nesterov)).ok());
  Tensor lr = Scalar<float>(0.1f), mom = Scalar<float>(0.9f);
  Tensor grad = Vec<float>({0.5f, -1});
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(r.Run({var.ref(), accum.ref(), TensorValue(&lr),
                       TensorValue(&grad), TensorValue(&mom)})
                    .ok());
    MomentumReference(&rv, &ra, 0.1, {0.5, -1}, 0.9, nesterov);
  }
  ExpectTensorNear<float>(var.tensor, TensorShape({2}), rv, 1e-5);
  ExpectTensorNear<float>(accum.tensor, TensorShape({2}), ra, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(PlainAndNesterov, MomentumTest, ::testing::Bool());

TEST(TrainingOpsTest, MomentumErrors) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyMomentum", 5, DT_FLOAT)).ok());
  TestRefVar var(Vec<float>({1, 2})), accum(Vec<float>({0}));
  Tensor lr = Scalar<float>(0.1f), mom = Scalar<float>(0.9f);
  Tensor grad = Vec<float>({1, 1});
  ExpectError(r.Run({var.ref(), accum.ref(), TensorValue(&lr),
                     TensorValue(&grad), TensorValue(&mom)}),
              absl::StatusCode::kInvalidArgument,
              {"var and accum do not have the same shape", "{{node apply}}"});
  Tensor bad_mom = Vec<float>({0.9f, 0.9f});
  TestRefVar accum2(Vec<float>({0, 0}));
  ExpectError(r.Run({var.ref(), accum2.ref(), TensorValue(&lr),
                     TensorValue(&grad), TensorValue(&bad_mom)}),
              absl::StatusCode::kInvalidArgument, {"momentum is not a scalar"});
}

TEST(TrainingOpsTest, SameVariableTwiceDoesNotDeadlock) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyMomentum", 5, DT_FLOAT)).ok());
  TestRefVar var(Vec<float>({1}));
  Tensor lr = Scalar<float>(1), mom = Scalar<float>(0), grad = Vec<float>({1});
  // accum = 1*0 + 1 = 1 (written to var), then var -= 1 * accum -> 0.
  ASSERT_TRUE(r.Run({var.ref(), var.ref(), TensorValue(&lr), TensorValue(&grad),
                     TensorValue(&mom)})
                  .ok());
  EXPECT_FLOAT_EQ(var.tensor.flat<float>()(0), 0);
}

struct AdamState {
  std::vector<double> var, m, v;
};

void AdamReference(AdamState* s, double beta1_power, double beta2_power,
                   double lr, double beta1, double beta2, double eps,
                   const std::vector<double>& g, bool nesterov) {
  const double lr_t = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  for (size_t i = 0; i < s->var.size(); ++i) {
    s->m[i] += (g[i] - s->m[i]) * (1 - beta1);
    s->v[i] += (g[i] * g[i] - s->v[i]) * (1 - beta2);
    const double num =
        nesterov ? (g[i] * (1 - beta1) + beta1 * s->m[i]) : s->m[i];
    s->var[i] -= lr_t * num / (std::sqrt(s->v[i]) + eps);
  }
}

class AdamTest : public ::testing::TestWithParam<bool> {};

TEST_P(AdamTest, MatchesReferenceOverSteps) {
  const bool nesterov = GetParam();
  TestRefVar var(Vec<double>({1, -1, 0.5})), m(Vec<double>({0, 0, 0})),
      v(Vec<double>({0, 0, 0}));
  AdamState ref{{1, -1, 0.5}, {0, 0, 0}, {0, 0, 0}};
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyAdam", 10, DT_DOUBLE, nesterov)).ok());
  const double beta1 = 0.9, beta2 = 0.999, lr = 0.01, eps = 1e-8;
  double b1p = beta1, b2p = beta2;
  const std::vector<double> g = {0.1, -0.3, 2.0};
  for (int step = 0; step < 4; ++step) {
    Tensor tb1p = Scalar<double>(b1p), tb2p = Scalar<double>(b2p);
    Tensor tlr = Scalar<double>(lr), tb1 = Scalar<double>(beta1),
           tb2 = Scalar<double>(beta2), teps = Scalar<double>(eps);
    Tensor grad = Vec<double>(g);
    ASSERT_TRUE(
        r.Run({var.ref(), m.ref(), v.ref(), TensorValue(&tb1p),
               TensorValue(&tb2p), TensorValue(&tlr), TensorValue(&tb1),
               TensorValue(&tb2), TensorValue(&teps), TensorValue(&grad)})
            .ok());
    AdamReference(&ref, b1p, b2p, lr, beta1, beta2, eps, g, nesterov);
    b1p *= beta1;
    b2p *= beta2;
  }
  ExpectTensorNear<double>(var.tensor, TensorShape({3}), ref.var, 1e-12);
  ExpectTensorNear<double>(m.tensor, TensorShape({3}), ref.m, 1e-12);
  ExpectTensorNear<double>(v.tensor, TensorShape({3}), ref.v, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(PlainAndNesterov, AdamTest, ::testing::Bool());

TEST(TrainingOpsTest, AdamRejectsNonScalarHyperParameter) {
  RefKernelRunner r;
  ASSERT_TRUE(r.Init(Apply("ApplyAdam", 10, DT_FLOAT)).ok());
  TestRefVar var(Vec<float>({1})), m(Vec<float>({0})), v(Vec<float>({0}));
  Tensor s = Scalar<float>(0.5f), bad = Vec<float>({1e-8f}),
         g = Vec<float>({1});
  ExpectError(r.Run({var.ref(), m.ref(), v.ref(), TensorValue(&s),
                     TensorValue(&s), TensorValue(&s), TensorValue(&s),
                     TensorValue(&s), TensorValue(&bad), TensorValue(&g)}),
              absl::StatusCode::kInvalidArgument,
              {"epsilon is not a scalar", "{{node apply}}"});
}

// --- Resource forms ---------------------------------------------------------

class ResourceTrainingTest : public ::testing::Test {
 protected:
  Tensor MakeVar(const std::string& name, const Tensor& value) {
    Tensor h = VarHandle(&device_, name, value.dtype());
    RefKernelRunner r(&device_);
    EXPECT_TRUE(r.Init(TestNode("assign", "AssignVariableOp")
                           .Inputs(2)
                           .Attr("dtype", value.dtype()))
                    .ok());
    EXPECT_TRUE(r.RunValues({h, value}).ok());
    return h;
  }
  Tensor Read(const Tensor& h, DataType dtype) {
    RefKernelRunner r(&device_);
    EXPECT_TRUE(
        r.Init(
             TestNode("read", "ReadVariableOp").Inputs(1).Attr("dtype", dtype))
            .ok());
    absl::Status s = r.RunValues({h});
    EXPECT_TRUE(s.ok()) << s;
    return r.output(0);
  }
  VariableTestDevice device_;
};

TEST_F(ResourceTrainingTest, GradientDescentUpdatesAndKeepsSnapshots) {
  Tensor h = MakeVar("w", Vec<float>({1, 2}));
  Tensor before = Read(h, DT_FLOAT);
  RefKernelRunner r(&device_);
  ASSERT_TRUE(r.Init(Apply("ResourceApplyGradientDescent", 3, DT_FLOAT)).ok());
  EXPECT_EQ(r.kernel()->num_outputs(), 0);
  ASSERT_TRUE(r.RunValues({h, Scalar<float>(0.5f), Vec<float>({2, 2})}).ok());
  ExpectTensorNear<float>(Read(h, DT_FLOAT), TensorShape({2}), {0, 1}, 1e-6);
  ExpectTensor<float>(before, TensorShape({2}), {1, 2});
}

TEST_F(ResourceTrainingTest, MomentumAndAdamMatchRefForms) {
  Tensor w = MakeVar("w", Vec<float>({1, -2}));
  Tensor acc = MakeVar("acc", Vec<float>({0, 0.5f}));
  TestRefVar rw(Vec<float>({1, -2})), racc(Vec<float>({0, 0.5f}));
  RefKernelRunner res(&device_), ref(&device_);
  ASSERT_TRUE(res.Init(Apply("ResourceApplyMomentum", 5, DT_FLOAT, true)).ok());
  ASSERT_TRUE(ref.Init(Apply("ApplyMomentum", 5, DT_FLOAT, true)).ok());
  Tensor lr = Scalar<float>(0.1f), g = Vec<float>({0.5f, -1}),
         mom = Scalar<float>(0.9f);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(res.RunValues({w, acc, lr, g, mom}).ok());
    ASSERT_TRUE(ref.Run({rw.ref(), racc.ref(), TensorValue(&lr),
                         TensorValue(&g), TensorValue(&mom)})
                    .ok());
  }
  EXPECT_EQ(Values<float>(Read(w, DT_FLOAT)), Values<float>(rw.tensor));
  EXPECT_EQ(Values<float>(Read(acc, DT_FLOAT)), Values<float>(racc.tensor));

  Tensor aw = MakeVar("aw", Vec<float>({1})),
         am = MakeVar("am", Vec<float>({0})),
         av = MakeVar("av", Vec<float>({0}));
  TestRefVar bw(Vec<float>({1})), bm(Vec<float>({0})), bv(Vec<float>({0}));
  RefKernelRunner adam_res(&device_), adam_ref(&device_);
  ASSERT_TRUE(adam_res.Init(Apply("ResourceApplyAdam", 10, DT_FLOAT)).ok());
  ASSERT_TRUE(adam_ref.Init(Apply("ApplyAdam", 10, DT_FLOAT)).ok());
  Tensor b1p = Scalar<float>(0.9f), b2p = Scalar<float>(0.999f),
         alr = Scalar<float>(0.01f), b1 = Scalar<float>(0.9f),
         b2 = Scalar<float>(0.999f), eps = Scalar<float>(1e-7f),
         ag = Vec<float>({0.3f});
  ASSERT_TRUE(
      adam_res.RunValues({aw, am, av, b1p, b2p, alr, b1, b2, eps, ag}).ok());
  ASSERT_TRUE(adam_ref
                  .Run({bw.ref(), bm.ref(), bv.ref(), TensorValue(&b1p),
                        TensorValue(&b2p), TensorValue(&alr), TensorValue(&b1),
                        TensorValue(&b2), TensorValue(&eps), TensorValue(&ag)})
                  .ok());
  EXPECT_EQ(Values<float>(Read(aw, DT_FLOAT)), Values<float>(bw.tensor));
  EXPECT_NE(Values<float>(bw.tensor)[0], 1.0f);
}

TEST_F(ResourceTrainingTest, MissingOrMistypedVariable) {
  RefKernelRunner r(&device_);
  ASSERT_TRUE(r.Init(Apply("ResourceApplyGradientDescent", 3, DT_FLOAT)).ok());
  Tensor ghost = VarHandle(&device_, "ghost", DT_FLOAT);
  // TensorFlow reports a missing resource variable here as Internal
  // ("Invalid variable reference").
  ExpectError(r.RunValues({ghost, Scalar<float>(1), Scalar<float>(1)}),
              absl::StatusCode::kInternal,
              {"Invalid variable reference", "ghost", "{{node apply}}"});
  Tensor ints = MakeVar("ints", Scalar<int32_t>(1));
  ExpectError(r.RunValues({ints, Scalar<float>(1), Scalar<float>(1)}),
              absl::StatusCode::kInvalidArgument, {"ints", "int32", "float"});
}

}  // namespace
}  // namespace test
}  // namespace stepflow
