// The op differential must cover every op stepflow can run: each op
// registered with a CPU kernel appears in some committed golden case
// (testing/tf_goldens/ops, written by generate_op_cases.py --golden; the op
// types of every node count, gradient graphs and function bodies included)
// or is listed, with a reason, in exempt_ops.txt. An exemption must name a
// registered op that no golden case uses, so the list never outlives its
// reason.
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow {
namespace oracle {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "stepflow", "/", path);
}

// Ops registered with at least one CPU kernel.
std::set<std::string> RunnableOps() {
  std::set<std::string> with_kernel;
  for (const KernelDef& k : KernelRegistry::Global()->ListKernels()) {
    if (k.device_type == "CPU") with_kernel.insert(k.op);
  }
  std::set<std::string> out;
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    if (with_kernel.count(op) > 0) out.insert(op);
  }
  return out;
}

// exempt_ops.txt: "<Op> <reason>" per line, '#' comments.
std::map<std::string, std::string> ReadExemptions(const std::string& path) {
  std::string text;
  const absl::Status s = ReadFileToString(path, &text);
  EXPECT_TRUE(s.ok()) << s;
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::pair<std::string, std::string> kv =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    EXPECT_FALSE(absl::StripAsciiWhitespace(kv.second).empty())
        << "exempt_ops.txt: " << kv.first << " has no reason";
    EXPECT_TRUE(out.emplace(kv.first, kv.second).second)
        << "exempt_ops.txt lists " << kv.first << " twice";
  }
  return out;
}

// Every op type used by the golden cases under `root`, with one case that
// uses it.
std::map<std::string, std::string> OpsInGoldens(const std::string& root) {
  std::vector<std::string> dirs;
  absl::Status s = FindCaseDirs(root, &dirs);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_FALSE(dirs.empty()) << "no golden op cases under " << root;
  std::map<std::string, std::string> used;
  for (const std::string& dir : dirs) {
    LoadedCase c;
    s = LoadCase(dir, &c);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) continue;
    for (const NodeDef& n : c.graph.node()) used.emplace(n.op(), c.spec.name());
    for (const FunctionDef& f : c.graph.library().function()) {
      for (const NodeDef& n : f.node_def()) used.emplace(n.op(), c.spec.name());
    }
  }
  return used;
}

class OpCoverageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runnable_ = RunnableOps();
    exempt_ = ReadExemptions(Runfile("testing/tf_ops/exempt_ops.txt"));
    used_ = OpsInGoldens(Runfile("testing/tf_goldens/ops"));
  }

  std::set<std::string> runnable_;
  std::map<std::string, std::string> exempt_;
  std::map<std::string, std::string> used_;
};

TEST_F(OpCoverageTest, EveryRunnableOpHasAGoldenCaseOrAnExemption) {
  ASSERT_FALSE(runnable_.empty());
  std::vector<std::string> uncovered;
  for (const std::string& op : runnable_) {
    if (used_.count(op) == 0 && exempt_.count(op) == 0) uncovered.push_back(op);
  }
  EXPECT_TRUE(uncovered.empty())
      << uncovered.size()
      << " op(s) with a CPU kernel appear in no golden op case "
         "(testing/tf_goldens/ops) and are not in testing/tf_ops/"
         "exempt_ops.txt: "
      << absl::StrJoin(uncovered, ", ")
      << ". Add cases to the op's family in testing/tf_ops/ops_*.py (mark "
         "one golden) and regenerate the goldens, or exempt the op with a "
         "reason.";
}

TEST_F(OpCoverageTest, ExemptionsNameRegisteredOpsWithoutGoldenCases) {
  for (const auto& [op, reason] : exempt_) {
    EXPECT_NE(OpRegistry::Global()->LookUpOrNull(op), nullptr)
        << "exempt_ops.txt lists " << op << ", which is not registered";
    EXPECT_EQ(runnable_.count(op), 1u)
        << "exempt_ops.txt lists " << op << ", which has no CPU kernel";
    auto it = used_.find(op);
    EXPECT_TRUE(it == used_.end())
        << "exempt_ops.txt lists " << op << ", but golden case " << it->second
        << " uses it: drop the exemption";
  }
}

}  // namespace
}  // namespace oracle
}  // namespace stepflow
