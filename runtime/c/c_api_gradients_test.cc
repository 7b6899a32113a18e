// TF_AddGradients: gradient values against TensorFlow's tf.gradients
// (testdata/gradient_goldens.txt, written by gen_gradient_goldens.py with
// the installed TensorFlow) and against central finite differences, for
// every golden graph; and TensorFlow's errors and edge cases (checked
// against TensorFlow's own C API): unregistered gradients, prefixes,
// unreachable inputs, ops without gradients, initial gradients.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::NewStatus;
using c_api_test::StatusPtr;

struct NamedTensor {
  std::string name;  // "op:index"
  std::vector<int64_t> dims;
  std::vector<double> values;
};

struct GoldenCase {
  std::string name;
  std::string graph_def;
  std::vector<NamedTensor> feeds, ys, xs;
};

std::string Runfile(const std::string& path) {
  return absl::StrCat(getenv("TEST_SRCDIR"), "/", getenv("TEST_WORKSPACE"), "/",
                      path);
}

// "<tag> <name> <dims|-> <values...>"
NamedTensor ParseTensor(const std::string& line) {
  std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
  NamedTensor t;
  t.name = f[1];
  if (f[2] != "-") {
    for (absl::string_view d : absl::StrSplit(f[2], ',')) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << line;
      t.dims.push_back(v);
    }
  }
  for (size_t i = 3; i < f.size(); ++i) {
    double v = 0;
    EXPECT_TRUE(absl::SimpleAtod(f[i], &v)) << line;
    t.values.push_back(v);
  }
  return t;
}

std::vector<GoldenCase> LoadGoldens() {
  std::ifstream in(Runfile("runtime/c/testdata/gradient_goldens.txt"));
  EXPECT_TRUE(in.good());
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (absl::StartsWith(line, "case ")) {
      cases.emplace_back();
      cases.back().name = line.substr(5);
    } else if (absl::StartsWith(line, "graph ")) {
      const std::string hex = line.substr(6);
      std::string bytes;
      for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        bytes.push_back(static_cast<char>(
            std::strtol(hex.substr(i, 2).c_str(), nullptr, 16)));
      }
      cases.back().graph_def = bytes;
    } else if (absl::StartsWith(line, "feed ")) {
      cases.back().feeds.push_back(ParseTensor(line));
    } else if (absl::StartsWith(line, "y ")) {
      cases.back().ys.push_back(ParseTensor(line));
    } else if (absl::StartsWith(line, "x ")) {
      cases.back().xs.push_back(ParseTensor(line));
    }
  }
  return cases;
}

TF_Tensor* DoubleTensor(const std::vector<int64_t>& dims,
                        const std::vector<double>& values) {
  TF_Tensor* t =
      TF_AllocateTensor(TF_DOUBLE, dims.data(), static_cast<int>(dims.size()),
                        values.size() * sizeof(double));
  double* data = static_cast<double*>(TF_TensorData(t));
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}

std::vector<double> Values(const TF_Tensor* t) {
  std::vector<double> out;
  const size_t n = TF_TensorByteSize(t);
  if (TF_TensorType(t) == TF_DOUBLE) {
    const double* d = static_cast<const double*>(TF_TensorData(t));
    out.assign(d, d + n / sizeof(double));
  } else if (TF_TensorType(t) == TF_FLOAT) {
    const float* d = static_cast<const float*>(TF_TensorData(t));
    out.assign(d, d + n / sizeof(float));
  }
  return out;
}

// One golden graph in a TF_Graph with its gradients added.
class GradientGraph {
 public:
  explicit GradientGraph(const GoldenCase& c) : c_(c) {}
  ~GradientGraph() {
    if (session_ != nullptr) {
      TF_CloseSession(session_, s_.get());
      TF_DeleteSession(session_, s_.get());
    }
    TF_DeleteGraph(g_);
  }

  TF_Output Tensor(const std::string& name) {
    std::vector<std::string> parts = absl::StrSplit(name, ':');
    int index = 0;
    EXPECT_TRUE(absl::SimpleAtoi(parts[1], &index));
    TF_Operation* op = TF_GraphOperationByName(g_, parts[0].c_str());
    EXPECT_NE(op, nullptr) << name;
    return TF_Output{op, index};
  }

  // Imports the graph, adds constants for grad_y and the gradients.
  bool Build() {
    TF_Buffer* buf =
        TF_NewBufferFromString(c_.graph_def.data(), c_.graph_def.size());
    TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
    TF_GraphImportGraphDef(g_, buf, opts, s_.get());
    TF_DeleteImportGraphDefOptions(opts);
    TF_DeleteBuffer(buf);
    if (TF_GetCode(s_.get()) != TF_OK) {
      ADD_FAILURE() << c_.name << ": " << TF_Message(s_.get());
      return false;
    }
    for (size_t i = 0; i < c_.ys.size(); ++i) {
      ys_.push_back(Tensor(c_.ys[i].name));
      TF_OperationDescription* d =
          TF_NewOperation(g_, "Const", absl::StrCat("grad_y_", i).c_str());
      TF_Tensor* t = DoubleTensor(c_.ys[i].dims, c_.ys[i].values);
      if (TF_OperationOutputType(ys_.back()) == TF_FLOAT) {
        // A float32 y (Cast): its initial gradient in float32.
        TF_DeleteTensor(t);
        t = TF_AllocateTensor(TF_FLOAT, c_.ys[i].dims.data(),
                              static_cast<int>(c_.ys[i].dims.size()),
                              c_.ys[i].values.size() * sizeof(float));
        for (size_t k = 0; k < c_.ys[i].values.size(); ++k) {
          static_cast<float*>(TF_TensorData(t))[k] =
              static_cast<float>(c_.ys[i].values[k]);
        }
      }
      TF_SetAttrTensor(d, "value", t, s_.get());
      TF_SetAttrType(d, "dtype", TF_TensorType(t));
      TF_DeleteTensor(t);
      grad_ys_.push_back(TF_Output{TF_FinishOperation(d, s_.get()), 0});
      EXPECT_EQ(TF_GetCode(s_.get()), TF_OK) << TF_Message(s_.get());
    }
    for (const NamedTensor& x : c_.xs) xs_.push_back(Tensor(x.name));
    grads_.resize(xs_.size());
    TF_AddGradients(g_, ys_.data(), static_cast<int>(ys_.size()), xs_.data(),
                    static_cast<int>(xs_.size()), grad_ys_.data(), s_.get(),
                    grads_.data());
    if (TF_GetCode(s_.get()) != TF_OK) {
      ADD_FAILURE() << c_.name << ": " << TF_Message(s_.get());
      return false;
    }
    TF_SessionOptions* so = TF_NewSessionOptions();
    session_ = TF_NewSession(g_, so, s_.get());
    TF_DeleteSessionOptions(so);
    return TF_GetCode(s_.get()) == TF_OK;
  }

  // Runs `fetches` with the case's feeds, feed `perturb` (if >= 0) having
  // element `element` moved by `delta`.
  std::vector<std::vector<double>> Run(const std::vector<TF_Output>& fetches,
                                       int perturb = -1, size_t element = 0,
                                       double delta = 0) {
    std::vector<TF_Output> feeds;
    std::vector<TF_Tensor*> values;
    for (size_t i = 0; i < c_.feeds.size(); ++i) {
      feeds.push_back(Tensor(c_.feeds[i].name));
      std::vector<double> v = c_.feeds[i].values;
      if (static_cast<int>(i) == perturb) v[element] += delta;
      values.push_back(DoubleTensor(c_.feeds[i].dims, v));
    }
    std::vector<TF_Tensor*> out(fetches.size(), nullptr);
    TF_SessionRun(session_, nullptr, feeds.data(), values.data(),
                  static_cast<int>(feeds.size()), fetches.data(), out.data(),
                  static_cast<int>(fetches.size()), nullptr, 0, nullptr,
                  s_.get());
    EXPECT_EQ(TF_GetCode(s_.get()), TF_OK)
        << c_.name << ": " << TF_Message(s_.get());
    std::vector<std::vector<double>> result;
    for (TF_Tensor* t : out) {
      result.push_back(t == nullptr ? std::vector<double>() : Values(t));
      if (t != nullptr) TF_DeleteTensor(t);
    }
    for (TF_Tensor* t : values) TF_DeleteTensor(t);
    return result;
  }

  // sum_i grad_y_i . y_i at the perturbed feeds.
  double Objective(int perturb, size_t element, double delta) {
    std::vector<std::vector<double>> ys = Run(ys_, perturb, element, delta);
    double total = 0;
    for (size_t i = 0; i < ys.size(); ++i) {
      for (size_t k = 0; k < ys[i].size(); ++k) {
        total += ys[i][k] * c_.ys[i].values[k];
      }
    }
    return total;
  }

  int FeedIndex(const std::string& name) const {
    for (size_t i = 0; i < c_.feeds.size(); ++i) {
      if (c_.feeds[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  const std::vector<TF_Output>& grads() const { return grads_; }

 private:
  const GoldenCase& c_;
  TF_Graph* g_ = TF_NewGraph();
  StatusPtr s_ = NewStatus();
  TF_Session* session_ = nullptr;
  std::vector<TF_Output> ys_, grad_ys_, xs_, grads_;
};

void ExpectClose(const std::vector<double>& got,
                 const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
  }
}

class GoldenGradientTest : public ::testing::TestWithParam<int> {};

TEST(GoldenGradients, FileHasCases) { EXPECT_GE(LoadGoldens().size(), 65u); }

TEST_P(GoldenGradientTest, MatchesTensorFlowAndFiniteDifferences) {
  static const std::vector<GoldenCase>* cases =
      new std::vector<GoldenCase>(LoadGoldens());
  if (GetParam() >= static_cast<int>(cases->size())) return;
  const GoldenCase& c = (*cases)[GetParam()];
  SCOPED_TRACE(c.name);
  GradientGraph g(c);
  ASSERT_TRUE(g.Build());
  std::vector<std::vector<double>> grads = g.Run(g.grads());
  const double tol = c.name == "cast_float32" ? 1e-6 : 1e-9;
  for (size_t i = 0; i < c.xs.size(); ++i) {
    ExpectClose(grads[i], c.xs[i].values, tol,
                absl::StrCat(c.name, ": TensorFlow's d/d", c.xs[i].name));
  }
  if (c.name == "cast_float32") return;  // Float32 differences are coarse.
  const double h = 1e-6;
  for (size_t i = 0; i < c.xs.size(); ++i) {
    const int feed = g.FeedIndex(c.xs[i].name);
    ASSERT_GE(feed, 0) << c.xs[i].name;
    std::vector<double> numeric;
    for (size_t k = 0; k < c.xs[i].values.size(); ++k) {
      numeric.push_back((g.Objective(feed, k, h) - g.Objective(feed, k, -h)) /
                        (2 * h));
    }
    ExpectClose(
        grads[i], numeric, 1e-5,
        absl::StrCat(c.name, ": finite differences of d/d", c.xs[i].name));
  }
}

// More than the golden file holds; indices past its end pass trivially and
// FileHasCases guards the count.
INSTANTIATE_TEST_SUITE_P(AllCases, GoldenGradientTest, ::testing::Range(0, 80));

// ---------------------------------------------------------------------------
// Errors and edge cases (TensorFlow's C API gives the same codes and
// messages).

class CApiGradientsTest : public ::testing::Test {
 protected:
  ~CApiGradientsTest() override { TF_DeleteGraph(g_); }
  TF_Operation* Placeholder(const char* name) {
    TF_OperationDescription* d = TF_NewOperation(g_, "Placeholder", name);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    return TF_FinishOperation(d, s());
  }
  TF_Operation* Unary(const char* type, const char* name, TF_Operation* in) {
    TF_OperationDescription* d = TF_NewOperation(g_, type, name);
    TF_AddInput(d, TF_Output{in, 0});
    TF_Operation* op = TF_FinishOperation(d, s());
    EXPECT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
    return op;
  }
  TF_Status* s() { return status_.get(); }
  TF_Output Grad(TF_Operation* y, TF_Operation* x,
                 const char* prefix = nullptr) {
    TF_Output ys{y, 0}, xs{x, 0}, out{nullptr, 7};
    TF_AddGradientsWithPrefix(g_, prefix, &ys, 1, &xs, 1, nullptr, s(), &out);
    return out;
  }

  TF_Graph* g_ = TF_NewGraph();
  StatusPtr status_ = NewStatus();
};

TEST_F(CApiGradientsTest, OpWithoutGradientIsNotFound) {
  TF_Operation* x = Placeholder("x");
  TF_Operation* y = Unary("Digamma", "y", x);
  Grad(y, x);
  EXPECT_EQ(TF_GetCode(s()), TF_NOT_FOUND);
  EXPECT_EQ(std::string(TF_Message(s())),
            "No gradient defined for op: Digamma. Please see "
            "https://www.tensorflow.org/code/tensorflow/cc/gradients/"
            "README.md for instructions on how to add C++ gradients.");
}

TEST_F(CApiGradientsTest, UnreachableInputIsInvalidArgument) {
  TF_Operation* x = Placeholder("x");
  TF_Operation* other = Placeholder("other");
  TF_Operation* y = Unary("Neg", "y", x);
  Grad(y, other);
  EXPECT_EQ(TF_GetCode(s()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(TF_Message(s())),
            "Cannot compute the partial derivative for node 'other' as it's "
            "unreachable from the output node(s).");
}

TEST_F(CApiGradientsTest, NoGradientOpGivesNullOutput) {
  TF_Operation* x = Placeholder("x");
  TF_Operation* y = Unary("Floor", "y", x);
  TF_Output g = Grad(y, x);
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  EXPECT_EQ(g.oper, nullptr);
  EXPECT_EQ(g.index, -1);
}

TEST_F(CApiGradientsTest, PrefixesAndScopes) {
  TF_Operation* x = Placeholder("x");
  TF_Operation* y = Unary("Neg", "y", x);
  TF_Output g1 = Grad(y, x);
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  EXPECT_TRUE(absl::StartsWith(TF_OperationName(g1.oper), "gradients/"))
      << TF_OperationName(g1.oper);
  TF_Output g2 = Grad(y, x);
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  EXPECT_TRUE(absl::StartsWith(TF_OperationName(g2.oper), "gradients_1/"))
      << TF_OperationName(g2.oper);
  TF_Output g3 = Grad(y, x, "mine");
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  EXPECT_TRUE(absl::StartsWith(TF_OperationName(g3.oper), "mine/"));

  Grad(y, x, "y");
  EXPECT_EQ(TF_GetCode(s()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(TF_Message(s())),
            "prefix [y] conflicts with existing node in the graph named [y]");
  Grad(y, x, "mine");
  EXPECT_EQ(TF_GetCode(s()), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StartsWith(
      TF_Message(s()),
      "prefix [mine] conflicts with existing node in the graph named [mine/"))
      << TF_Message(s());
}

TEST_F(CApiGradientsTest, PartialPathsThroughNoGradientOps) {
  // y = Neg(x) + Floor(x): only the Neg path carries a gradient.
  TF_Operation* x = Placeholder("x");
  TF_Operation* neg = Unary("Neg", "neg", x);
  TF_Operation* floor = Unary("Floor", "floor", x);
  TF_OperationDescription* d = TF_NewOperation(g_, "AddV2", "y");
  TF_AddInput(d, TF_Output{neg, 0});
  TF_AddInput(d, TF_Output{floor, 0});
  TF_Operation* y = TF_FinishOperation(d, s());
  TF_Output g = Grad(y, x);
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  ASSERT_NE(g.oper, nullptr);

  TF_SessionOptions* so = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g_, so, s());
  TF_DeleteSessionOptions(so);
  TF_Output feed{x, 0};
  TF_Tensor* value = c_api_test::FloatScalar(1.5f);
  TF_Tensor* result = nullptr;
  TF_SessionRun(session, nullptr, &feed, &value, 1, &g, &result, 1, nullptr, 0,
                nullptr, s());
  ASSERT_EQ(TF_GetCode(s()), TF_OK) << TF_Message(s());
  EXPECT_EQ(c_api_test::FloatValue(result), -1.0f);
  TF_DeleteTensor(result);
  TF_DeleteTensor(value);
  TF_CloseSession(session, s());
  TF_DeleteSession(session, s());
}

}  // namespace
}  // namespace stepflow
