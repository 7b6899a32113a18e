// While loops that carry tensors, through DirectSession: a loop whose
// variables are a fixed-shape float accumulator and a vector that grows by
// one element per iteration, and a nested loop accumulating a tensor in
// the inner loop with outer values entered through both frames
// (testing/while_loop_graphs.h). Each runs on one device, split with the
// body on CPU:1 and the loop machinery on CPU:0, and under seeded random
// splits; the results must equal plain C++ arithmetic.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"
#include "testing/while_loop_graphs.h"

namespace stepflow {
namespace {

// x: quarter-integers, so every sum below is exact in float.
Tensor X() {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  const float v[] = {0.25f, -1.5f, 2.0f, 3.75f, -0.5f, 1.0f};
  for (int i = 0; i < 6; ++i) t.flat<float>()(i) = v[i];
  return t;
}

void ExpectScaledX(const Tensor& t, float scale) {
  ASSERT_EQ(t.dtype(), DT_FLOAT);
  ASSERT_EQ(t.shape(), TensorShape({2, 3}));
  const Tensor x = X();
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(t.flat<float>()(i), x.flat<float>()(i) * scale)
        << "element " << i;
  }
}

class WhileLoopTensorSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewSessionWith(const GraphDef& g) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = 2;
    opts.config.set_operation_timeout_in_ms(60000);
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    s = session->Create(g);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? std::move(session) : nullptr;
  }

  // Runs and returns the outputs; counts partitions and whether any
  // carried control-loop scaffolding.
  std::vector<Tensor> Run(Session* session, const Session::FeedList& feeds,
                          const std::vector<std::string>& fetches,
                          int* partitions = nullptr,
                          bool* control_loops = nullptr) {
    RunOptions options;
    options.set_output_partition_graphs(true);
    RunMetadata metadata;
    std::vector<Tensor> out;
    absl::Status s = session->Run(options, feeds, fetches, {}, &out, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    if (partitions != nullptr) *partitions = metadata.partition_graphs_size();
    if (control_loops != nullptr) {
      *control_loops = false;
      for (const GraphDef& p : metadata.partition_graphs()) {
        for (const NodeDef& n : p.node()) {
          if (absl::StartsWith(n.name(), "_cloop")) *control_loops = true;
        }
      }
    }
    return out;
  }

  void CheckAccumulate(const LoopPlacement& place, bool split) {
    auto session = NewSessionWith(AccumulateLoopGraph(place));
    ASSERT_NE(session, nullptr);
    for (int n : {0, 1, 2, 5, 10}) {
      SCOPED_TRACE(absl::StrCat("n = ", n));
      int partitions = 0;
      bool loops = false;
      std::vector<Tensor> out = Run(
          session.get(), {{"n", Tensor::Scalar<int32_t>(n)}, {"x", X()}},
          {"while/Exit", "while/Exit_1", "while/Exit_2"}, &partitions, &loops);
      ASSERT_EQ(out.size(), 3u);
      EXPECT_EQ(out[0].scalar<int32_t>(), n);
      ExpectScaledX(out[1], static_cast<float>(n * (n - 1) / 2));
      ASSERT_EQ(out[2].shape(), TensorShape({n}));
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(out[2].flat<float>()(i), static_cast<float>(i));
      }
      if (split) {
        EXPECT_EQ(partitions, 2);
        EXPECT_TRUE(loops);
      } else {
        EXPECT_EQ(partitions, 1);
        EXPECT_FALSE(loops);
      }
    }
  }

  void CheckNested(const LoopPlacement& place, bool split) {
    auto session = NewSessionWith(NestedLoopGraph(place));
    ASSERT_NE(session, nullptr);
    for (const auto& nm : std::vector<std::pair<int, int>>{
             {0, 3}, {3, 0}, {1, 1}, {3, 4}, {2, 5}}) {
      SCOPED_TRACE(absl::StrCat("n = ", nm.first, ", m = ", nm.second));
      int partitions = 0;
      bool loops = false;
      std::vector<Tensor> out =
          Run(session.get(),
              {{"n", Tensor::Scalar<int32_t>(nm.first)},
               {"m", Tensor::Scalar<int32_t>(nm.second)},
               {"x", X()}},
              {"while/Exit_1", "while/Exit"}, &partitions, &loops);
      ASSERT_EQ(out.size(), 2u);
      ExpectScaledX(out[0], static_cast<float>(nm.first * nm.second));
      EXPECT_EQ(out[1].scalar<int32_t>(), nm.first);
      EXPECT_EQ(partitions, split ? 2 : 1);
      EXPECT_EQ(loops, split);
    }
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(WhileLoopTensorSessionTest, CounterLocalAndSplit) {
  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "split" : "local");
    auto session = NewSessionWith(
        CounterLoopGraph(split ? SplitBodyFromControl("/cpu:0", "/cpu:1")
                               : AllOnDevice("/cpu:0")));
    ASSERT_NE(session, nullptr);
    for (int n : {0, 1, 10}) {
      int partitions = 0;
      std::vector<Tensor> out =
          Run(session.get(), {{"n", Tensor::Scalar<int32_t>(n)}},
              {"while/Exit"}, &partitions);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].scalar<int32_t>(), n);
      EXPECT_EQ(partitions, split ? 2 : 1);
    }
  }
}

TEST_F(WhileLoopTensorSessionTest, AccumulateTensorsLocal) {
  CheckAccumulate(AllOnDevice("/cpu:0"), false);
}

TEST_F(WhileLoopTensorSessionTest, AccumulateTensorsSplitOverTwoDevices) {
  CheckAccumulate(SplitBodyFromControl("/cpu:0", "/cpu:1"), true);
}

TEST_F(WhileLoopTensorSessionTest, AccumulateTensorsBodyOnCpu0ControlOnCpu1) {
  CheckAccumulate(SplitBodyFromControl("/cpu:1", "/cpu:0"), true);
}

TEST_F(WhileLoopTensorSessionTest, NestedTensorLoopLocal) {
  CheckNested(AllOnDevice("/cpu:0"), false);
}

TEST_F(WhileLoopTensorSessionTest, NestedTensorLoopSplitOverTwoDevices) {
  CheckNested(SplitBodyFromControl("/cpu:0", "/cpu:1"), true);
}

// Seeded random splits (node by node, Switch with its Merge): the same
// values as on one device.
TEST_F(WhileLoopTensorSessionTest, RandomSplits) {
  uint64_t state = 99;
  auto draw = [&state]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    auto acc = NewSessionWith(AccumulateLoopGraph(RandomLoopPlacement(draw)));
    auto nested = NewSessionWith(NestedLoopGraph(RandomLoopPlacement(draw)));
    ASSERT_NE(acc, nullptr);
    ASSERT_NE(nested, nullptr);
    for (int n : {0, 3, 7}) {
      std::vector<Tensor> out =
          Run(acc.get(), {{"n", Tensor::Scalar<int32_t>(n)}, {"x", X()}},
              {"while/Exit_1", "while/Exit_2"});
      ASSERT_EQ(out.size(), 2u);
      ExpectScaledX(out[0], static_cast<float>(n * (n - 1) / 2));
      EXPECT_EQ(out[1].NumElements(), n);
      out = Run(nested.get(),
                {{"n", Tensor::Scalar<int32_t>(n)},
                 {"m", Tensor::Scalar<int32_t>(3)},
                 {"x", X()}},
                {"while/Exit_1"});
      ASSERT_EQ(out.size(), 1u);
      ExpectScaledX(out[0], static_cast<float>(n * 3));
    }
  }
}

}  // namespace
}  // namespace stepflow
