// The typical client pattern through the C API: one graph, several sessions
// on it, a long loop of runs with feeds (from one thread and from several),
// the graph growing mid-loop, then close and delete in either order. Checks
// every value and that the graph is freed exactly once at the end.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::ImportText;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;

constexpr int kSessions = 4;
constexpr int kRuns = 1000;

// Runs feeding x, fetching `fetches`; returns false (with a gtest failure) on
// error. Values go to `values`.
bool RunOnce(TF_Session* s, TF_Operation* x, float xv,
             const std::vector<TF_Operation*>& fetches,
             std::vector<float>* values) {
  auto status = NewStatus();
  TF_Output feed{x, 0};
  TF_Tensor* in = FloatScalar(xv);
  std::vector<TF_Output> outs;
  for (TF_Operation* op : fetches) outs.push_back(TF_Output{op, 0});
  std::vector<TF_Tensor*> results(fetches.size(), nullptr);
  TF_SessionRun(s, nullptr, &feed, &in, 1, outs.data(), results.data(),
                static_cast<int>(outs.size()), nullptr, 0, nullptr,
                status.get());
  TF_DeleteTensor(in);
  if (TF_GetCode(status.get()) != TF_OK) {
    ADD_FAILURE() << TF_Message(status.get());
    return false;
  }
  values->clear();
  for (TF_Tensor* t : results) {
    values->push_back(FloatValue(t));
    TF_DeleteTensor(t);
  }
  return true;
}

TEST(CApiUsageTest, ManySessionsLongRunLoopThenCloseAndDelete) {
  const int64_t live_before = TF_TestOnlyLiveGraphCount();
  TF_Graph* graph = TF_NewGraph();
  ASSERT_EQ(ImportText(graph, PlaceholderNode("x") + ConstFloatNode("c", 3) +
                                  BinaryNode("AddV2", "z", "x", "c") +
                                  BinaryNode("Mul", "w", "z", "x")),
            TF_OK);
  TF_Operation* x = TF_GraphOperationByName(graph, "x");
  TF_Operation* z = TF_GraphOperationByName(graph, "z");
  TF_Operation* w = TF_GraphOperationByName(graph, "w");
  ASSERT_NE(w, nullptr);

  TF_SessionOptions* opts = TF_NewSessionOptions();
  auto status = NewStatus();
  std::vector<TF_Session*> sessions;
  for (int i = 0; i < kSessions; ++i) {
    sessions.push_back(TF_NewSession(graph, opts, status.get()));
    ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  }
  TF_DeleteSessionOptions(opts);

  TF_Operation* v = nullptr;  // Added halfway: v = w - c.
  std::vector<float> values;
  for (int i = 0; i < kRuns; ++i) {
    if (i == kRuns / 2) {
      ASSERT_EQ(ImportText(graph, BinaryNode("Sub", "v", "w", "c")), TF_OK);
      v = TF_GraphOperationByName(graph, "v");
      ASSERT_NE(v, nullptr);
    }
    const float xv = static_cast<float>(i % 97) - 48;
    std::vector<TF_Operation*> fetches = {z, w};
    if (v != nullptr) fetches.push_back(v);
    ASSERT_TRUE(RunOnce(sessions[i % kSessions], x, xv, fetches, &values))
        << "run " << i;
    ASSERT_EQ(values[0], xv + 3) << "run " << i;
    ASSERT_EQ(values[1], (xv + 3) * xv) << "run " << i;
    if (v != nullptr) {
      ASSERT_EQ(values[2], (xv + 3) * xv - 3) << "run " << i;
    }
  }

  for (TF_Session* s : sessions) {
    TF_CloseSession(s, status.get());
    EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  }
  // Closed: runs are Cancelled.
  TF_Output feed{x, 0};
  TF_Tensor* in = FloatScalar(1);
  TF_Output out{z, 0};
  TF_Tensor* result = nullptr;
  TF_SessionRun(sessions[0], nullptr, &feed, &in, 1, &out, &result, 1, nullptr,
                0, nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_CANCELLED);
  EXPECT_EQ(result, nullptr);
  TF_DeleteTensor(in);

  TF_DeleteGraph(graph);  // Sessions still hold it.
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live_before + 1);
  for (TF_Session* s : sessions) {
    TF_DeleteSession(s, status.get());
    EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  }
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live_before);
}

TEST(CApiUsageTest, ConcurrentRunsWhileTheGraphGrows) {
  const int64_t live_before = TF_TestOnlyLiveGraphCount();
  TF_Graph* graph = TF_NewGraph();
  ASSERT_EQ(ImportText(graph, PlaceholderNode("x") + ConstFloatNode("c", 1) +
                                  BinaryNode("AddV2", "z", "x", "c")),
            TF_OK);
  TF_Operation* x = TF_GraphOperationByName(graph, "x");
  TF_Operation* z = TF_GraphOperationByName(graph, "z");
  TF_SessionOptions* opts = TF_NewSessionOptions();
  auto status = NewStatus();
  std::vector<TF_Session*> sessions;
  for (int i = 0; i < kSessions; ++i) {
    sessions.push_back(TF_NewSession(graph, opts, status.get()));
    ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  }
  TF_DeleteSessionOptions(opts);

  // Two threads per session (so one session runs concurrently with itself
  // and with its extension), while the main thread keeps importing nodes.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2 * kSessions; ++t) {
    threads.emplace_back([&, t] {
      TF_Session* s = sessions[t % kSessions];
      std::vector<float> values;
      for (int i = 0; i < kRuns / (2 * kSessions); ++i) {
        const float xv = static_cast<float>(t * 1000 + i);
        if (!RunOnce(s, x, xv, {z}, &values) || values[0] != xv + 1) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (int k = 0; k < 20; ++k) {
    ASSERT_EQ(
        ImportText(graph, BinaryNode("Mul", "m" + std::to_string(k), "z", "z")),
        TF_OK);
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);

  // Every session can use the last imported node.
  TF_Operation* last = TF_GraphOperationByName(graph, "m19");
  std::vector<float> values;
  for (TF_Session* s : sessions) {
    ASSERT_TRUE(RunOnce(s, x, 2, {last}, &values));
    EXPECT_EQ(values[0], 9.0f);
  }
  // Delete the sessions first, then the graph.
  for (TF_Session* s : sessions) {
    TF_DeleteSession(s, status.get());  // Without closing first.
    EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  }
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live_before + 1);
  TF_DeleteGraph(graph);
  EXPECT_EQ(TF_TestOnlyLiveGraphCount(), live_before);
}

}  // namespace
}  // namespace stepflow
