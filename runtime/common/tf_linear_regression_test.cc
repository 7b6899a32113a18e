// Trains TensorFlow's own linear-regression graph (written by TensorFlow:
// shared/testdata/tf/linear_regression_train.pb, beside the checkout):
// `init` once, then 201 steps of `train` on y = 0.1 x + 0.3, after which
// w -> 0.1 and b -> 0.3. Run on one device, and with the variables on
// CPU:1 and the math on CPU:0. Skips when the file is absent.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"
#include "testing/linear_regression_data.h"
#include "testing/tf_testdata.h"

namespace stepflow {
namespace {

constexpr char kGraph[] = "linear_regression_train.pb";

Session::FeedList TrainingData() {
  return graph_testing::LinearRegressionFeeds();
}

bool IsVariable(const NodeDef& n) {
  return n.op() == "Variable" || n.op() == "VariableV2";
}

bool ConsumesRef(const NodeDef& n) {
  return n.op() == "Assign" || n.op() == "ApplyGradientDescent";
}

class TfLinearRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::optional<std::string> path = TfTestdataFile(kGraph);
    if (!path.has_value()) {
      GTEST_SKIP() << "TensorFlow testdata '" << kGraph
                   << "' not found (set STEPFLOW_TF_TESTDATA or put "
                      "shared/testdata/tf beside the checkout)";
    }
    absl::Status s = ReadGraphDefFromFile(*path, &graph_);
    ASSERT_TRUE(s.ok()) << s;
    env_ = RealEnv::Create(4);
  }

  std::unique_ptr<Session> NewLocalSession(int cpus) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = cpus;
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  // Runs init + 201 training steps and checks w and b. Returns the devices
  // the nodes ran on in the last step.
  std::map<std::string, std::string> Train(Session* s) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {}, {"init"}, &out);
    EXPECT_TRUE(st.ok()) << st;
    const Session::FeedList data = TrainingData();
    RunOptions opts;
    opts.set_output_partition_graphs(true);
    RunMetadata meta;
    for (int step = 0; step < 201 && st.ok(); ++step) {
      st = s->Run(opts, data, {}, {"train"}, &out, &meta);
      EXPECT_TRUE(st.ok()) << "step " << step << ": " << st;
    }
    st = s->Run({}, {"w", "b"}, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
    if (st.ok()) {
      EXPECT_EQ(out[0].NumElements(), 1);
      EXPECT_EQ(out[1].NumElements(), 1);
      EXPECT_NEAR(out[0].flat<float>()(0), 0.1f, 1e-3);
      EXPECT_NEAR(out[1].flat<float>()(0), 0.3f, 1e-3);
    }
    std::map<std::string, std::string> placed;
    for (const GraphDef& p : meta.partition_graphs()) {
      for (const NodeDef& n : p.node()) placed[n.name()] = n.device();
    }
    return placed;
  }

  GraphDef graph_;
  std::unique_ptr<RealEnv> env_;
};

TEST_F(TfLinearRegressionTest, TrainsOnOneDevice) {
  auto s = NewLocalSession(1);
  absl::Status st = s->Create(graph_);
  ASSERT_TRUE(st.ok()) << st;
  Train(s.get());
}

TEST_F(TfLinearRegressionTest, VariablesOnCpu1MathOnCpu0) {
  // Variables pinned to CPU:1; their Assign/ApplyGradientDescent follow over
  // the ref edges; everything else on CPU:0.
  for (NodeDef& n : *graph_.mutable_node()) {
    if (IsVariable(n)) {
      n.set_device("/cpu:1");
    } else if (!ConsumesRef(n)) {
      n.set_device("/cpu:0");
    }
  }
  auto s = NewLocalSession(2);
  absl::Status st = s->Create(graph_);
  ASSERT_TRUE(st.ok()) << st;
  std::map<std::string, std::string> placed = Train(s.get());
  EXPECT_TRUE(absl::StrContains(placed["w"], "CPU:1")) << placed["w"];
  EXPECT_TRUE(
      absl::StrContains(placed["train/update_w/ApplyGradientDescent"], "CPU:1"))
      << placed["train/update_w/ApplyGradientDescent"];
  EXPECT_TRUE(absl::StrContains(placed["mul"], "CPU:0")) << placed["mul"];
}

}  // namespace
}  // namespace stepflow
