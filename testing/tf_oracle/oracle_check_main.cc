// oracle_check: runs oracle cases through stepflow and compares each with
// TensorFlow's recorded result (CASE/expected, written by tf_oracle.py).
//
//   oracle_check --cases=DIR[,DIR...] [--label=zoo]
//                [--cannot_run_yet=FILE] [--filter=SUBSTRING]
//                [--write_results=DIR]
//
// Prints one line per case (MATCH, MISMATCH with the first difference, or
// CANNOT-RUN-YET with the listed reason), then
//   SUMMARY <label>: <matched> / <total> matched, <n> cannot run yet
// and the cannot-run-yet list. --cannot_run_yet names the one file that
// lists the cases stepflow cannot run yet ("<case name> <reason>" per line,
// '#' comments): a listed case that stepflow refuses to run is reported,
// not failed; a listed case that runs (matching or not) fails the run, so
// the list only shrinks and never hides a wrong answer.
//
// Exit status: 0 when every unlisted case matches and no listed case
// does; 1 otherwise; 2 on bad flags or unreadable cases.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/env/real/real_env.h"
#include "testing/tf_oracle/compare.h"
#include "testing/tf_oracle/oracle_case.h"
#include "testing/tf_oracle/stepflow_runner.h"

ABSL_FLAG(std::vector<std::string>, cases, {},
          "Directories holding oracle cases (searched recursively)");
ABSL_FLAG(std::string, label, "cases", "Name of this suite in the summary");
ABSL_FLAG(std::string, cannot_run_yet, "",
          "File listing the cases stepflow cannot run yet, with reasons");
ABSL_FLAG(std::string, filter, "", "Only cases whose name contains this");
ABSL_FLAG(std::string, write_results, "",
          "Also write stepflow's results under DIR/<case name>");
ABSL_FLAG(int, inter_op_threads, 2, "Scheduler threads for the sessions");

namespace stepflow {
namespace oracle {
namespace {

absl::Status ReadCannotRunYet(const std::string& path,
                              std::map<std::string, std::string>* out) {
  if (path.empty()) return absl::OkStatus();
  std::string text;
  absl::Status s = ReadFileToString(path, &text);
  if (!s.ok()) return s;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::pair<std::string, std::string> kv =
        absl::StrSplit(line, absl::MaxSplits(absl::ByAnyChar(" \t"), 1));
    (*out)[kv.first] = std::string(absl::StripAsciiWhitespace(kv.second));
  }
  return absl::OkStatus();
}

int Main() {
  std::map<std::string, std::string> listed;
  absl::Status s =
      ReadCannotRunYet(absl::GetFlag(FLAGS_cannot_run_yet), &listed);
  if (!s.ok()) {
    absl::FPrintF(stderr, "oracle_check: %s\n", s.ToString());
    return 2;
  }
  std::vector<std::string> dirs;
  for (const std::string& root : absl::GetFlag(FLAGS_cases)) {
    s = FindCaseDirs(root, &dirs);
    if (!s.ok()) {
      absl::FPrintF(stderr, "oracle_check: %s\n", s.ToString());
      return 2;
    }
  }
  std::unique_ptr<RealEnv> env =
      RealEnv::Create(absl::GetFlag(FLAGS_inter_op_threads));
  const std::string label = absl::GetFlag(FLAGS_label);
  const std::string filter = absl::GetFlag(FLAGS_filter);
  const std::string write_results = absl::GetFlag(FLAGS_write_results);
  int total = 0, matched = 0, failed = 0;
  std::vector<std::string> cannot_run;
  std::map<std::string, bool> seen_listed;
  for (const std::string& dir : dirs) {
    LoadedCase c;
    s = LoadCase(dir, &c);
    if (!s.ok()) {
      absl::PrintF("ERROR %s: %s\n", dir, s.ToString());
      ++failed;
      continue;
    }
    const std::string& name = c.spec.name().empty() ? dir : c.spec.name();
    if (!filter.empty() && !absl::StrContains(name, filter)) continue;
    ++total;
    CaseOutcome want;
    s = LoadOutcome(dir + "/expected", &want);
    if (!s.ok()) {
      absl::PrintF("ERROR %s: no TensorFlow result: %s\n", name, s.ToString());
      ++failed;
      continue;
    }
    const CaseOutcome got = RunCaseInStepflow(c, env->env());
    const std::vector<std::string> fetches(c.spec.fetches().begin(),
                                           c.spec.fetches().end());
    if (!write_results.empty()) {
      WriteOutcome(got, fetches, "stepflow", write_results + "/" + name)
          .IgnoreError();
    }
    const absl::Status diff = CompareOutcomes(want, got, c.graph, fetches);
    auto it = listed.find(name);
    const bool is_listed = it != listed.end();
    if (is_listed) seen_listed[name] = true;
    if (diff.ok() && !is_listed) {
      ++matched;
      absl::PrintF("MATCH %s\n", name);
    } else if (diff.ok()) {
      ++matched;
      ++failed;
      absl::PrintF("LISTED-BUT-MATCHES %s: it runs now; remove it from %s\n",
                   name, absl::GetFlag(FLAGS_cannot_run_yet));
    } else if (is_listed && got.status.ok()) {
      // The list is for what stepflow refuses to run, not for wrong answers.
      ++failed;
      absl::PrintF("MISMATCH %s (listed as cannot run yet, but it runs): %s\n",
                   name, diff.message());
    } else if (is_listed) {
      cannot_run.push_back(absl::StrCat(name, ": ", it->second));
      absl::PrintF("CANNOT-RUN-YET %s: %s\n", name, it->second);
    } else {
      ++failed;
      absl::PrintF("MISMATCH %s: %s\n", name, diff.message());
    }
    std::fflush(stdout);
  }
  absl::PrintF("SUMMARY %s: %d / %d matched, %d cannot run yet\n", label,
               matched, total, cannot_run.size());
  if (!cannot_run.empty()) {
    absl::PrintF("Cannot run yet (%s):\n", label);
    for (const std::string& line : cannot_run) absl::PrintF("  %s\n", line);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace oracle
}  // namespace stepflow

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return stepflow::oracle::Main();
}
