// shape_check: holds stepflow's shape inference to TensorFlow's.
//
//   shape_check --cases=ROOT --shapes=DIR [--known=FILE] [--verbose]
//
// For every DIR/<case>.shapes (written by tf_shapes.py from the graph
// ROOT/<case>/graph.pb or .pbtxt) imports the graph, runs the ShapeRefiner
// over it and compares each output's shape with TensorFlow's. An output of
// an op stepflow has a shape function for must match exactly (unknown
// only where TensorFlow says unknown) whenever its inputs' shapes match
// TensorFlow's; a difference inherited from an input (an op without a
// shape function upstream, a constant TensorFlow folds and stepflow does
// not) is counted, not failed. Ops without a function give unknown shapes
// and are counted apart. A graph TensorFlow refuses ("ERROR ...") must be
// refused by stepflow's shape inference too. FILE lists known differences,
// one "<case> <node>:<index>" per line ('#' comments); a listed output
// that matches fails the check too, so the list only shrinks.
//
// Prints one MISMATCH line per difference and a SUMMARY; exit status 1 on
// any unlisted difference or stale list entry.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/framework/op.h"
#include "runtime/function/function_shape_inference.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_def_io.h"
#include "runtime/graph/shape_refiner.h"

namespace stepflow {
namespace {

namespace fs = std::filesystem;

struct Totals {
  int graphs = 0, skipped = 0, errors_matched = 0;
  int outputs = 0, with_fn = 0, with_fn_exact = 0, without_fn_unknown = 0;
  int without_fn = 0, failures = 0, inherited = 0;
  std::map<std::string, std::pair<int, int>> by_op;  // op -> (exact, all)
  std::map<std::string, int> without_fn_ops;         // op -> outputs
};

std::string Flag(int argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, prefix)) return std::string(a);
  }
  return "";
}

bool HasFlag(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == "--" + name) return true;
  }
  return false;
}

int Main(int argc, char** argv) {
  const std::string cases = Flag(argc, argv, "cases");
  const std::string shapes = Flag(argc, argv, "shapes");
  const std::string known_file = Flag(argc, argv, "known");
  const bool verbose = HasFlag(argc, argv, "verbose");
  if (cases.empty() || shapes.empty()) {
    std::fprintf(stderr, "usage: shape_check --cases=ROOT --shapes=DIR\n");
    return 2;
  }
  std::set<std::string> known, known_seen;
  if (!known_file.empty()) {
    std::ifstream in(known_file);
    std::string line;
    while (std::getline(in, line)) {
      line = std::string(absl::StripAsciiWhitespace(line));
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      if (f.size() >= 2) known.insert(f[0] + " " + f[1]);
    }
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(shapes)) {
    if (e.path().extension() == ".shapes") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  Totals t;
  for (const fs::path& file : files) {
    // Lexical: runfiles are symlinks into the source tree.
    std::string rel = file.lexically_relative(shapes).string();
    rel = rel.substr(0, rel.size() - std::string(".shapes").size());
    const fs::path dir = fs::path(cases) / rel;
    fs::path graph_path = dir / "graph.pb";
    if (!fs::exists(graph_path)) graph_path = dir / "graph.pbtxt";
    GraphDef gdef;
    if (!ReadGraphDefFromFile(graph_path.string(), &gdef).ok()) {
      std::printf("MISMATCH %s: no graph at %s\n", rel.c_str(),
                  graph_path.c_str());
      ++t.failures;
      continue;
    }
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines.push_back(line);
    }
    ++t.graphs;
    Graph g;
    GraphConstructorOptions opts;
    opts.infer_shapes = false;
    absl::Status s = ConvertGraphDefToGraph(opts, gdef, &g);
    const bool tf_error = !lines.empty() && absl::StartsWith(lines[0], "ERROR");
    if (!s.ok()) {
      std::printf("SKIP %s: stepflow cannot import it: %s\n", rel.c_str(),
                  std::string(s.message()).substr(0, 200).c_str());
      ++t.skipped;
      continue;
    }
    // As the importer's: calls are inferred through their functions.
    ShapeRefiner refiner;
    refiner.set_function_library(&g.library(), InferFunctionCallShapes);
    s = refiner.AddNodes(g.op_nodes());
    if (tf_error) {
      if (s.ok()) {
        std::printf(
            "MISMATCH %s: TensorFlow refuses it (%s), stepflow "
            "does not\n",
            rel.c_str(), lines[0].c_str());
        ++t.failures;
      } else {
        ++t.errors_matched;
      }
      continue;
    }
    if (!s.ok()) {
      std::printf("MISMATCH %s: stepflow refuses it: %s\n", rel.c_str(),
                  std::string(s.message()).c_str());
      ++t.failures;
      continue;
    }
    std::map<std::string, std::string> tf_shapes;  // "node:i" -> shape
    for (const std::string& line : lines) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      if (f.size() == 3) tf_shapes[f[0]] = f[2];
    }
    // Whether some data input of `node` differs from TensorFlow's.
    auto inherits = [&](const Node* node) {
      for (const Edge* e : node->in_edges()) {
        if (e->IsControlEdge()) continue;
        auto it = tf_shapes.find(e->src()->name() + ":" +
                                 std::to_string(e->src_output()));
        if (it != tf_shapes.end() &&
            it->second != refiner.DebugString(
                              refiner.OutputShape(e->src(), e->src_output()))) {
          return true;
        }
      }
      return false;
    };
    for (const std::string& line : lines) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      if (f.size() != 3) continue;
      std::pair<std::string, std::string> id =
          absl::StrSplit(f[0], absl::MaxSplits(':', 1));
      const Node* node = g.FindNodeByName(id.first);
      if (node == nullptr) continue;
      const int index = std::stoi(id.second);
      const std::string ours =
          refiner.DebugString(refiner.OutputShape(node, index));
      ++t.outputs;
      const bool has_fn =
          OpRegistry::Global()->LookUpShapeFn(node->type_string()) != nullptr;
      if (!has_fn) {
        ++t.without_fn;
        ++t.without_fn_ops[node->type_string()];
        if (ours == "?") ++t.without_fn_unknown;
        continue;
      }
      ++t.with_fn;
      auto& op = t.by_op[node->type_string()];
      ++op.second;
      const std::string key = rel + " " + f[0];
      if (ours == f[2]) {
        ++t.with_fn_exact;
        ++op.first;
        if (known.count(key) > 0) {
          std::printf("STALE %s: listed as a difference but matches (%s)\n",
                      key.c_str(), ours.c_str());
          ++t.failures;
        }
        continue;
      }
      if (inherits(node)) {
        ++t.inherited;
        if (verbose) {
          std::printf("INHERITED %s (%s): TensorFlow %s, stepflow %s\n",
                      key.c_str(), f[1].c_str(), f[2].c_str(), ours.c_str());
        }
        continue;
      }
      if (known.count(key) > 0) {
        known_seen.insert(key);
        if (verbose) {
          std::printf("KNOWN %s (%s): TensorFlow %s, stepflow %s\n",
                      key.c_str(), f[1].c_str(), f[2].c_str(), ours.c_str());
        }
        continue;
      }
      std::printf("MISMATCH %s (%s): TensorFlow %s, stepflow %s\n", key.c_str(),
                  f[1].c_str(), f[2].c_str(), ours.c_str());
      ++t.failures;
    }
  }
  for (const auto& [op, counts] : t.by_op) {
    if (verbose || counts.first != counts.second) {
      std::printf("OP %s %d/%d\n", op.c_str(), counts.first, counts.second);
    }
  }
  if (verbose) {
    for (const auto& [op, n] : t.without_fn_ops) {
      std::printf("NO-SHAPE-FN %s %d\n", op.c_str(), n);
    }
  }
  std::printf(
      "SUMMARY graphs=%d skipped=%d refusals_matched=%d outputs=%d "
      "with_shape_fn=%d exact=%d (%.1f%%) inherited=%d "
      "own_exact=%.2f%% without_shape_fn=%d failures=%d\n",
      t.graphs, t.skipped, t.errors_matched, t.outputs, t.with_fn,
      t.with_fn_exact,
      t.with_fn == 0 ? 100.0 : 100.0 * t.with_fn_exact / t.with_fn, t.inherited,
      t.with_fn == t.inherited
          ? 100.0
          : 100.0 * t.with_fn_exact / (t.with_fn - t.inherited),
      t.without_fn, t.failures);
  if (t.graphs == 0) {
    std::printf("FAILED: no graph compared\n");
    return 1;
  }
  return t.failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) { return stepflow::Main(argc, argv); }
