// TensorFlow 1.x while loops through DirectSession: GraphDefs written the
// way tf.while_loop emits them (frame "while/while_context", Enter, Merge,
// Less, LoopCond, Switch, Identity, Add, NextIteration, Exit), run on one
// device and split over two (the control-loop scaffolding of partitioning).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"
#include "runtime/common/session_factory.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace {

// Which device each node goes on, by node name ("" = let the placer pick).
using Placement = std::function<std::string(const std::string& node)>;

// TensorFlow's text form of one node.
class Text {
 public:
  explicit Text(Placement place) : place_(std::move(place)) {}

  Text& Node(const std::string& name, const std::string& op,
             const std::vector<std::string>& inputs, const std::string& attrs) {
    absl::StrAppend(&out_, "node {\n  name: \"", name, "\"\n  op: \"", op,
                    "\"\n");
    for (const std::string& in : inputs) {
      absl::StrAppend(&out_, "  input: \"", in, "\"\n");
    }
    const std::string device = place_(name);
    if (!device.empty()) absl::StrAppend(&out_, "  device: \"", device, "\"\n");
    absl::StrAppend(&out_, attrs, "}\n");
    return *this;
  }

  static std::string T(const std::string& type = "DT_INT32") {
    return absl::StrCat("  attr {\n    key: \"T\"\n    value {\n      type: ",
                        type, "\n    }\n  }\n");
  }
  static std::string IntConst(int v) {
    return absl::StrCat(
        "  attr {\n    key: \"dtype\"\n    value {\n      type: DT_INT32\n"
        "    }\n  }\n  attr {\n    key: \"value\"\n    value {\n      tensor "
        "{\n        dtype: DT_INT32\n        tensor_shape {\n        }\n"
        "        int_val: ",
        v, "\n      }\n    }\n  }\n");
  }
  static std::string Int32Placeholder() {
    return "  attr {\n    key: \"dtype\"\n    value {\n      type: DT_INT32\n"
           "    }\n  }\n";
  }
  static std::string EnterAttrs(const std::string& frame, bool is_constant) {
    return absl::StrCat(
        T(), "  attr {\n    key: \"frame_name\"\n    value {\n      s: \"",
        frame,
        "\"\n    }\n  }\n  attr {\n    key: \"is_constant\"\n    value "
        "{\n      b: ",
        is_constant ? "true" : "false",
        "\n    }\n  }\n  attr {\n    key: \"parallel_iterations\"\n    value "
        "{\n      i: 10\n    }\n  }\n");
  }
  static std::string MergeAttrs() {
    return absl::StrCat(
        "  attr {\n    key: \"N\"\n    value {\n      i: 2\n"
        "    }\n  }\n",
        T());
  }
  static std::string SwitchAttrs(const std::string& merge) {
    return absl::StrCat(T(),
                        "  attr {\n    key: \"_class\"\n    value {\n      "
                        "list {\n        s: \"loc:@",
                        merge, "\"\n      }\n    }\n  }\n");
  }

  std::string Finish() {
    return absl::StrCat(out_, "versions {\n  producer: 26\n}\n");
  }

 private:
  Placement place_;
  std::string out_;
};

// The loop-variable plumbing tf.while_loop emits for variable k (suffix
// "" for the first, "_1" for the second...) of the loop at `scope`.
void LoopVarHead(Text* t, const std::string& scope, const std::string& frame,
                 const std::string& k, const std::string& init) {
  t->Node(scope + "/Enter" + k, "Enter", {init},
          Text::EnterAttrs(frame, false));
  t->Node(scope + "/Merge" + k, "Merge",
          {scope + "/Enter" + k, scope + "/NextIteration" + k},
          Text::MergeAttrs());
}
void LoopVarTail(Text* t, const std::string& scope, const std::string& k,
                 const std::string& next_value) {
  t->Node(scope + "/Switch" + k, "Switch",
          {scope + "/Merge" + k, scope + "/LoopCond"},
          Text::SwitchAttrs(scope + "/Merge" + k));
  t->Node(scope + "/Identity" + k, "Identity", {scope + "/Switch" + k + ":1"},
          Text::T());
  t->Node(scope + "/NextIteration" + k, "NextIteration", {next_value},
          Text::T());
  t->Node(scope + "/Exit" + k, "Exit", {scope + "/Switch" + k}, Text::T());
}

// i = tf.constant(0)
// r = tf.while_loop(lambda i: tf.less(i, n), lambda i: tf.add(i, 1), [i])
// with n a constant, or (n < 0) the int32 placeholder "n".
std::string CounterGraph(int n, const Placement& place) {
  Text t(place);
  const std::string f = "while/while_context";
  t.Node("Const", "Const", {}, Text::IntConst(0));
  if (n < 0) t.Node("n", "Placeholder", {}, Text::Int32Placeholder());
  LoopVarHead(&t, "while", f, "", "Const");
  if (n >= 0) {
    t.Node("while/Less/y", "Const", {"^while/Merge"}, Text::IntConst(n));
    t.Node("while/Less", "Less", {"while/Merge", "while/Less/y"}, Text::T());
  } else {
    t.Node("while/Less/Enter", "Enter", {"n"}, Text::EnterAttrs(f, true));
    t.Node("while/Less", "Less", {"while/Merge", "while/Less/Enter"},
           Text::T());
  }
  t.Node("while/LoopCond", "LoopCond", {"while/Less"}, "");
  LoopVarTail(&t, "while", "", "while/Add");
  t.Node("while/Add/y", "Const", {"^while/Identity"}, Text::IntConst(1));
  t.Node("while/Add", "Add", {"while/Identity", "while/Add/y"}, Text::T());
  return t.Finish();
}

// i, s = 0, 0
// r = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [i, s])
// n: the int32 placeholder "n".
std::string SumGraph(const Placement& place) {
  Text t(place);
  const std::string f = "while/while_context";
  t.Node("Const", "Const", {}, Text::IntConst(0));
  t.Node("Const_1", "Const", {}, Text::IntConst(0));
  t.Node("n", "Placeholder", {}, Text::Int32Placeholder());
  LoopVarHead(&t, "while", f, "", "Const");
  LoopVarHead(&t, "while", f, "_1", "Const_1");
  t.Node("while/Less/Enter", "Enter", {"n"}, Text::EnterAttrs(f, true));
  t.Node("while/Less", "Less", {"while/Merge", "while/Less/Enter"}, Text::T());
  t.Node("while/LoopCond", "LoopCond", {"while/Less"}, "");
  LoopVarTail(&t, "while", "", "while/add");
  LoopVarTail(&t, "while", "_1", "while/add_1");
  t.Node("while/add/y", "Const", {"^while/Identity"}, Text::IntConst(1));
  t.Node("while/add", "Add", {"while/Identity", "while/add/y"}, Text::T());
  t.Node("while/add_1", "Add", {"while/Identity_1", "while/Identity"},
         Text::T());
  return t.Finish();
}

// def outer_body(i, c):
//   j = tf.constant(0)
//   _, c = tf.while_loop(lambda j, c: j < m, lambda j, c: (j + 1, c + 1),
//                        [j, c])
//   return i + 1, c
// r = tf.while_loop(lambda i, c: i < n, outer_body, [0, 0])
std::string NestedGraph(int n, int m, const Placement& place) {
  Text t(place);
  const std::string f = "while/while_context";
  const std::string inner_f = "while/while/while_context";
  t.Node("Const", "Const", {}, Text::IntConst(0));
  t.Node("Const_1", "Const", {}, Text::IntConst(0));
  LoopVarHead(&t, "while", f, "", "Const");
  LoopVarHead(&t, "while", f, "_1", "Const_1");
  t.Node("while/Less/y", "Const", {"^while/Merge"}, Text::IntConst(n));
  t.Node("while/Less", "Less", {"while/Merge", "while/Less/y"}, Text::T());
  t.Node("while/LoopCond", "LoopCond", {"while/Less"}, "");
  LoopVarTail(&t, "while", "", "while/add");
  LoopVarTail(&t, "while", "_1", "while/while/Exit_1");
  t.Node("while/Const", "Const", {"^while/Identity"}, Text::IntConst(0));
  // The inner loop.
  LoopVarHead(&t, "while/while", inner_f, "", "while/Const");
  LoopVarHead(&t, "while/while", inner_f, "_1", "while/Identity_1");
  t.Node("while/while/Less/y", "Const", {"^while/while/Merge"},
         Text::IntConst(m));
  t.Node("while/while/Less", "Less",
         {"while/while/Merge", "while/while/Less/y"}, Text::T());
  t.Node("while/while/LoopCond", "LoopCond", {"while/while/Less"}, "");
  LoopVarTail(&t, "while/while", "", "while/while/add");
  LoopVarTail(&t, "while/while", "_1", "while/while/add_1");
  t.Node("while/while/add/y", "Const", {"^while/while/Identity"},
         Text::IntConst(1));
  t.Node("while/while/add", "Add",
         {"while/while/Identity", "while/while/add/y"}, Text::T());
  t.Node("while/while/add_1/y", "Const", {"^while/while/Identity"},
         Text::IntConst(1));
  t.Node("while/while/add_1", "Add",
         {"while/while/Identity_1", "while/while/add_1/y"}, Text::T());
  // Back in the outer body.
  t.Node("while/add/y", "Const", {"^while/Identity"}, Text::IntConst(1));
  t.Node("while/add", "Add", {"while/Identity", "while/add/y"}, Text::T());
  return t.Finish();
}

// Everything on the default device.
std::string Local(const std::string&) { return ""; }

// The loop's condition and plumbing on /cpu:0, its body (Identity, the
// body's constants and arithmetic) on /cpu:1.
std::string SplitBodyCond(const std::string& node) {
  const std::string leaf = node.substr(node.rfind('/') + 1);
  const bool body =
      absl::StartsWith(leaf, "Identity") || absl::StartsWith(leaf, "add") ||
      absl::StartsWith(leaf, "Add") || leaf == "y" || node == "while/Const";
  const bool in_loop = absl::StartsWith(node, "while/");
  if (!in_loop) return "/cpu:0";
  if (body && !absl::StrContains(node, "Less")) return "/cpu:1";
  return "/cpu:0";
}

class WhileLoopSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewSession(const std::string& graph_text,
                                      int cpus = 2) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["CPU"] = cpus;
    opts.config.set_operation_timeout_in_ms(60000);
    std::unique_ptr<Session> session;
    absl::Status s = ::stepflow::NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    GraphDef g;
    s = ParseGraphDefFromText(graph_text, &g);
    EXPECT_TRUE(s.ok()) << s << "\n" << graph_text;
    s = session->Create(g);
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  // Runs and returns the int32 scalars fetched; checks how many partitions
  // ran and whether any carried control-loop scaffolding.
  std::vector<int32_t> RunInts(Session* session, const Session::FeedList& feeds,
                               const std::vector<std::string>& fetches,
                               int want_partitions, bool want_control_loops) {
    RunOptions options;
    options.set_output_partition_graphs(true);
    RunMetadata metadata;
    std::vector<Tensor> out;
    absl::Status s = session->Run(options, feeds, fetches, {}, &out, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    std::vector<int32_t> values;
    if (!s.ok()) return values;
    for (const Tensor& t : out) values.push_back(t.scalar<int32_t>());
    EXPECT_EQ(metadata.partition_graphs_size(), want_partitions);
    bool control_loops = false;
    for (const GraphDef& p : metadata.partition_graphs()) {
      for (const NodeDef& n : p.node()) {
        if (absl::StartsWith(n.name(), "_cloop")) control_loops = true;
      }
    }
    EXPECT_EQ(control_loops, want_control_loops);
    return values;
  }

  std::unique_ptr<RealEnv> env_;
};

TEST_F(WhileLoopSessionTest, CounterLocal) {
  auto session = NewSession(CounterGraph(10, Local), 1);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunInts(session.get(), {}, {"while/Exit"}, 1, false),
            std::vector<int32_t>{10});
}

TEST_F(WhileLoopSessionTest, CounterSplitOverTwoDevices) {
  auto session = NewSession(CounterGraph(10, SplitBodyCond));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunInts(session.get(), {}, {"while/Exit"}, 2, true),
            std::vector<int32_t>{10});
  // The same executors again.
  EXPECT_EQ(RunInts(session.get(), {}, {"while/Exit"}, 2, true),
            std::vector<int32_t>{10});
}

TEST_F(WhileLoopSessionTest, SumLocalAndSplit) {
  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "split" : "local");
    auto session = NewSession(
        SumGraph(split ? Placement(SplitBodyCond) : Placement(Local)),
        split ? 2 : 1);
    ASSERT_NE(session, nullptr);
    EXPECT_EQ(RunInts(session.get(), {{"n", Tensor::Scalar<int32_t>(10)}},
                      {"while/Exit_1", "while/Exit"}, split ? 2 : 1, split),
              (std::vector<int32_t>{45, 10}));
  }
}

TEST_F(WhileLoopSessionTest, NestedLocalAndSplit) {
  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "split" : "local");
    auto session = NewSession(
        NestedGraph(3, 4, split ? Placement(SplitBodyCond) : Placement(Local)),
        split ? 2 : 1);
    ASSERT_NE(session, nullptr);
    EXPECT_EQ(RunInts(session.get(), {}, {"while/Exit_1", "while/Exit"},
                      split ? 2 : 1, split),
              (std::vector<int32_t>{12, 3}));
  }
}

TEST_F(WhileLoopSessionTest, CondOnTheSecondDeviceAndBodyOnTheFirst) {
  auto swapped = [](const std::string& node) {
    const std::string d = SplitBodyCond(node);
    return d == "/cpu:0" ? std::string("/cpu:1") : std::string("/cpu:0");
  };
  auto session = NewSession(NestedGraph(3, 4, swapped));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunInts(session.get(), {}, {"while/Exit_1"}, 2, true),
            std::vector<int32_t>{12});
}

// Property-style: trip counts 0..20 under a fixed-seed stream of random
// splits (each node on /cpu:0 or /cpu:1; a Switch follows its Merge, as
// its _class attr asks) give n, n(n-1)/2 and n*m, as on one device.
TEST_F(WhileLoopSessionTest, RandomTripCountsAndSplits) {
  std::mt19937 rng(20240611);
  int control_loop_rounds = 0;  // Partitions with control loops.
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    std::map<std::string, std::string> chosen;
    const bool local = round == 0;
    Placement random_place = [&](const std::string& node) -> std::string {
      if (local) return "/cpu:0";
      std::string key = node;
      // Switch "x/Switch_k" is colocated with "x/Merge_k".
      const size_t at = key.rfind("/Switch");
      if (at != std::string::npos) key.replace(at, 7, "/Merge");
      auto it = chosen.find(key);
      if (it == chosen.end()) {
        it = chosen.emplace(key, (rng() & 1) ? "/cpu:1" : "/cpu:0").first;
      }
      return it->second;
    };
    auto counter = NewSession(CounterGraph(-1, random_place));
    auto sum = NewSession(SumGraph(random_place));
    ASSERT_NE(counter, nullptr);
    ASSERT_NE(sum, nullptr);
    {
      RunOptions options;
      options.set_output_partition_graphs(true);
      RunMetadata metadata;
      std::vector<Tensor> out;
      ASSERT_TRUE(counter
                      ->Run(options, {{"n", Tensor::Scalar<int32_t>(2)}},
                            {"while/Exit"}, {}, &out, &metadata)
                      .ok());
      for (const GraphDef& p : metadata.partition_graphs()) {
        for (const NodeDef& node : p.node()) {
          if (absl::StartsWith(node.name(), "_cloop")) {
            ++control_loop_rounds;
            break;
          }
        }
      }
    }
    for (int n = 0; n <= 20; ++n) {
      SCOPED_TRACE(absl::StrCat("n = ", n));
      std::vector<Tensor> out;
      absl::Status s = counter->Run({{"n", Tensor::Scalar<int32_t>(n)}},
                                    {"while/Exit"}, {}, &out);
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(out[0].scalar<int32_t>(), n);
      s = sum->Run({{"n", Tensor::Scalar<int32_t>(n)}},
                   {"while/Exit_1", "while/Exit"}, {}, &out);
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(out[0].scalar<int32_t>(), n * (n - 1) / 2);
      EXPECT_EQ(out[1].scalar<int32_t>(), n);
    }
    for (int n : {0, 1, 4}) {
      for (int m : {0, 3}) {
        SCOPED_TRACE(absl::StrCat("nested ", n, " x ", m));
        auto nested = NewSession(NestedGraph(n, m, random_place));
        ASSERT_NE(nested, nullptr);
        std::vector<Tensor> out;
        absl::Status s =
            nested->Run({}, {"while/Exit_1", "while/Exit"}, {}, &out);
        ASSERT_TRUE(s.ok()) << s;
        EXPECT_EQ(out[0].scalar<int32_t>(), n * m);
        EXPECT_EQ(out[1].scalar<int32_t>(), n);
      }
    }
  }
  // The random splits did exercise the scaffolding.
  EXPECT_GE(control_loop_rounds, 4);
}

}  // namespace
}  // namespace stepflow
