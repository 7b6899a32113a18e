// The random-graph differential: rapidcheck draws TensorFlow-1.x programs
// (testing/differential_graphs.h), real TensorFlow runs each through the
// oracle (tf_oracle.py serve) and stepflow runs it in-process; values and
// error codes must agree. A mismatch is shrunk by rapidcheck to a small
// graph, which is written out as an oracle case (the regression graph) to
// $TEST_UNDECLARED_OUTPUTS_DIR/regression_graph, ready to be committed as a
// golden.
//
// STEPFLOW_DIFF_GRAPHS (default 500) sets how many graphs; STEPFLOW_DIFF_SEED
// (default fixed) the seed. Without TensorFlow the tests skip, unless
// STEPFLOW_REQUIRE_TF=1.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "absl/strings/str_cat.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/planted_bug.h"
#include "testing/differential_graphs.h"
#include "testing/test_tmpdir.h"
#include "testing/tf_oracle/case_shrinker.h"
#include "testing/tf_oracle/compare.h"
#include "testing/tf_oracle/oracle_case.h"
#include "testing/tf_oracle/oracle_client.h"
#include "testing/tf_oracle/stepflow_runner.h"

namespace stepflow {
namespace oracle {
namespace {

using test::TestTmpDir;

using graph_testing::DifferentialGraph;
namespace fs = std::filesystem;

int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' ? std::atoi(v) : def;
}

// Runs graphs through both systems; remembers the last mismatching case.
class Differential {
 public:
  absl::Status Start() {
    std::string python;
    absl::Status s = TensorFlowPython(&python);
    if (!s.ok()) return s;
    env_ = RealEnv::Create(2);
    root_ = TestTmpDir() + "/differential";
    return OracleClient::Start(python, OracleScriptPath(), &client_);
  }

  // Writes `g` as a case and has TensorFlow run it; `dir` is the case.
  absl::Status RunInTensorFlow(const DifferentialGraph& g, std::string* dir,
                               LoadedCase* c, CaseOutcome* want) {
    *dir = absl::StrCat(root_, "/", count_++);
    std::error_code ec;
    fs::remove_all(*dir, ec);
    OracleCase spec;
    spec.set_name(absl::StrCat("random/", count_ - 1));
    for (const std::string& f : g.fetches) spec.add_fetches(f);
    for (const std::string& t : g.init_targets) spec.add_init_targets(t);
    spec.set_steps(g.steps);
    absl::Status s = WriteCase(*dir, spec, g.graph, g.feeds);
    if (s.ok()) s = client_->Run(*dir, *dir + "/expected");
    if (s.ok()) s = LoadCase(*dir, c);
    if (s.ok()) s = LoadOutcome(*dir + "/expected", want);
    if (!s.ok()) return absl::UnavailableError(s.ToString());
    return absl::OkStatus();
  }

  // OK when stepflow matches TensorFlow on `g`; FailedPrecondition with
  // the difference otherwise; Unavailable when the oracle itself failed.
  absl::Status Check(const DifferentialGraph& g) {
    std::string dir;
    LoadedCase c;
    CaseOutcome want;
    absl::Status s = RunInTensorFlow(g, &dir, &c, &want);
    if (!s.ok()) return s;
    const CaseOutcome got = RunCaseInStepflow(c, env_->env());
    s = CompareOutcomes(want, got, c.graph,
                        {g.fetches.begin(), g.fetches.end()});
    std::error_code ec;
    if (!s.ok()) {
      last_failure_ = dir;
      last_graph_ = g;
      last_message_ = std::string(s.message());
    } else {
      fs::remove_all(dir, ec);
    }
    return s;
  }

  // TensorFlow's values of `endpoints` in `g` (the shrinker's evaluate).
  absl::Status Evaluate(const DifferentialGraph& g,
                        const std::vector<std::string>& endpoints,
                        std::vector<Tensor>* values) {
    DifferentialGraph probe = g;
    probe.fetches = endpoints;
    probe.steps = 1;
    std::string dir;
    LoadedCase c;
    CaseOutcome want;
    absl::Status s = RunInTensorFlow(probe, &dir, &c, &want);
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!s.ok()) return s;
    if (!want.status.ok()) return want.status;
    if (want.steps.size() != 1) return absl::InternalError("no step");
    *values = want.steps[0];
    return absl::OkStatus();
  }

  // Shrinks the last mismatch further by cutting (case_shrinker.h) and
  // returns the case directory of the result.
  absl::Status ShrinkLastFailure(std::string* dir) {
    if (!last_graph_.has_value()) return absl::NotFoundError("no failure");
    DifferentialGraph g = *last_graph_;
    ShrinkHooks hooks;
    hooks.judge = [this](const DifferentialGraph& x) { return Check(x); };
    hooks.evaluate =
        [this](const DifferentialGraph& x, const std::vector<std::string>& e,
               std::vector<Tensor>* v) { return Evaluate(x, e, v); };
    absl::Status s = ShrinkDisagreement(hooks, &g);
    if (!s.ok()) return s;
    // Record the final graph's own case (and message) once more.
    s = Check(g);
    if (s.ok()) return absl::InternalError("the shrunk graph agrees");
    *dir = *last_failure_;
    return absl::OkStatus();
  }

  // Runs `graphs` random graphs from `seed`; the rapidcheck result.
  rc::detail::TestResult Run(uint64_t seed, int graphs) {
    rc::detail::TestParams params;
    params.seed = seed;
    params.maxSuccess = graphs;
    params.maxSize = 100;
    rc::detail::TestMetadata metadata;
    metadata.id = "random_graph_differential";
    return rc::detail::checkTestable(
        [this](const DifferentialGraph& g) {
          const absl::Status s = Check(g);
          RC_ASSERT(s.code() != absl::StatusCode::kUnavailable);
          if (!s.ok()) RC_FAIL(std::string(s.message()));
        },
        metadata, params);
  }

  const std::optional<std::string>& last_failure() const {
    return last_failure_;
  }
  const std::string& last_message() const { return last_message_; }

 private:
  std::unique_ptr<RealEnv> env_;
  std::unique_ptr<OracleClient> client_;
  std::string root_;
  int count_ = 0;
  std::optional<std::string> last_failure_;
  std::optional<DifferentialGraph> last_graph_;
  std::string last_message_;
};

}  // namespace
}  // namespace oracle
}  // namespace stepflow

namespace rc {
template <>
struct Arbitrary<stepflow::graph_testing::DifferentialGraph> {
  static Gen<stepflow::graph_testing::DifferentialGraph> arbitrary() {
    return stepflow::graph_testing::GenDifferentialGraph();
  }
};
}  // namespace rc

namespace stepflow {
namespace oracle {
namespace {

#define SKIP_WITHOUT_TENSORFLOW(status)            \
  do {                                             \
    if (!(status).ok()) {                          \
      if (RequireTensorFlow()) FAIL() << (status); \
      GTEST_SKIP() << (status).message();          \
    }                                              \
  } while (0)

TEST(RandomGraphDifferentialTest, StepflowMatchesTensorFlow) {
  Differential d;
  const absl::Status started = d.Start();
  SKIP_WITHOUT_TENSORFLOW(started);
  const uint64_t seed = EnvInt("STEPFLOW_DIFF_SEED", 20261126);
  const int graphs = EnvInt("STEPFLOW_DIFF_GRAPHS", 500);
  const rc::detail::TestResult result = d.Run(seed, graphs);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (result.is<rc::detail::SuccessResult>()) {
    std::cout << "SUMMARY random-graphs: "
              << result.get<rc::detail::SuccessResult>().numSuccess
              << " graphs compared with TensorFlow, all matched (seed " << seed
              << ")\n";
    return;
  }
  std::string where = "(no case kept)";
  std::string shrunk;
  if (d.ShrinkLastFailure(&shrunk).ok()) {
    where = shrunk;
    if (const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
      std::error_code ec;
      const std::string dest = std::string(out) + "/regression_graph";
      std::filesystem::remove_all(dest, ec);
      std::filesystem::copy(shrunk, dest,
                            std::filesystem::copy_options::recursive, ec);
      if (!ec) where = dest;
    }
  }
  LoadedCase c;
  std::string graph_text;
  if (LoadCase(shrunk, &c).ok()) graph_text = c.graph.DebugString();
  FAIL() << "stepflow and TensorFlow disagree on a random graph (seed " << seed
         << "): " << d.last_message()
         << "\nThe shrunk graph, written as the oracle case " << where
         << " (commit it under testing/tf_goldens/ as a regression):\n"
         << graph_text << "\n"
         << message.str();
}

// Shows the differential can fail: with Sub's operands swapped in the CPU
// kernel, a graph is found and shrunk to a few nodes around a Sub.
TEST(RandomGraphDifferentialTest, APlantedKernelBugIsCaughtAndShrunk) {
  Differential d;
  const absl::Status started = d.Start();
  SKIP_WITHOUT_TENSORFLOW(started);
  ScopedPlantedBug bug(PlantedBug::kSwappedSub);
  const rc::detail::TestResult result = d.Run(7, 300);
  ASSERT_TRUE(result.is<rc::detail::FailureResult>())
      << "the planted Sub bug was not caught";
  std::string shrunk;
  ASSERT_TRUE(d.ShrinkLastFailure(&shrunk).ok());
  LoadedCase c;
  ASSERT_TRUE(LoadCase(shrunk, &c).ok());
  bool has_sub = false;
  for (const NodeDef& n : c.graph.node()) has_sub |= n.op() == "Sub";
  EXPECT_TRUE(has_sub) << d.last_message() << "\n" << c.graph.DebugString();
  // Shrunk to the Sub and its two operands.
  EXPECT_LE(c.graph.node_size(), 3) << c.graph.DebugString();
  std::cout << "planted bug caught after "
            << result.get<rc::detail::FailureResult>().numSuccess
            << " passing graphs; shrunk to " << c.graph.node_size()
            << " nodes:\n"
            << c.graph.DebugString();
}

}  // namespace
}  // namespace oracle
}  // namespace stepflow
