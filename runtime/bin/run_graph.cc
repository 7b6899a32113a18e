// run_graph: loads a GraphDef (binary or text), feeds values given on the
// command line, runs it in a session and prints the fetched tensors.
//
//   run_graph --graph=examples/add.pbtxt --fetch=z x=2 y=40
//   run_graph --graph=g.pb --init=init --target=train --steps=200
//             --print_every=50 --fetch=w,b x=[...] y=[...]
//
// With --target, every step runs the targets and the fetches are evaluated
// in a separate Run after the last step (and every --print_every steps), so
// reading a variable never races with the step that updates it.
//
// --device=PREFIX=DEVICE[,PREFIX=DEVICE...] pins the nodes named PREFIX or
// under the name scope PREFIX/ to DEVICE before the graph is created (the
// longest matching prefix wins; a prefix matching no node is an error; see
// runtime/bin/device_requests.h). With a grpc:// target this splits a
// graph across tasks, e.g. TensorFlow's linear regression with its
// variables (and so their Assign/ApplyGradientDescent, which the placer
// colocates with them) on task 1 and the math on task 0:
//
//   run_graph --graph=linear_regression_train.pb
//             --session_target=grpc://127.0.0.1:2222
//             --device=w=/job:worker/replica:0/task:1,b=/job:worker/replica:0/task:1
//             --init=init --target=train --steps=201 --fetch=w,b x=[...] y=[...]
//
// --session_target=grpc://host:port (or a --target entry of that form)
// runs on a cluster of grpc_server tasks instead of in this process.
//
// A feed value "@FILE" is read from a .npy file (numpy.save) or a binary
// TensorProto, for values too big for a command line (runtime/bin/
// feed_parser.h); --output_dir=DIR writes each fetched tensor after the
// last step to DIR as .npy (runtime/bin/tensor_file.h says how fetch names
// map to file names), for numpy.load:
//
//   run_graph --graph=model.pb --fetch=logits --output_dir=out images=@batch.npy
//
// --init runs its nodes once, before the steps, with the command-line feeds
// that those nodes depend on (a Saver restore's filename, an initial value
// fed to an Assign); the others would be unused there.
//
// --timeline=FILE traces the last step (RunOptions FULL_TRACE) and writes
// it as Chrome trace JSON (runtime/client/timeline.h): open it in
// chrome://tracing, Perfetto or tools/timeline_viewer/viewer.html.
//
// Exit status: 0 on success; 1 on any error, with the error on stderr.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/bin/device_requests.h"
#include "runtime/bin/feed_parser.h"
#include "runtime/bin/tensor_file.h"
#include "runtime/client/timeline.h"
#include "runtime/common/session.h"
#include "runtime/env/real/malloc_tuning.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/graph/graph_def_io.h"

ABSL_FLAG(std::string, graph, "", "GraphDef file (binary .pb or text .pbtxt)");
ABSL_FLAG(std::vector<std::string>, fetch, {},
          "Comma-separated tensors to fetch (after the steps when --target is set)");
ABSL_FLAG(std::vector<std::string>, target, {},
          "Comma-separated nodes to run (no output); an entry grpc://host:port "
          "is the session target instead (same as --session_target)");
ABSL_FLAG(std::vector<std::string>, init, {},
          "Comma-separated nodes to run once before the steps (e.g. init)");
ABSL_FLAG(std::vector<std::string>, device, {},
          "Comma-separated PREFIX=DEVICE requests: nodes named PREFIX or "
          "under PREFIX/ run on DEVICE (longest prefix wins)");
ABSL_FLAG(int, steps, 1, "How many times to run the fetches/targets");
ABSL_FLAG(int, print_every, 0,
          "With --steps > 1, print the fetches every N steps (0: after the last)");
ABSL_FLAG(std::string, session_target, "",
          "Session target: \"\" for local, grpc://host:port for distributed");
ABSL_FLAG(int, cpus, 1, "Number of CPU devices (ConfigProto.device_count)");
ABSL_FLAG(int, inter_op_threads, 0, "Inter-op threads (0 = number of cores)");
ABSL_FLAG(bool, log_device_placement, false, "Print each node's device");
ABSL_FLAG(bool, allow_soft_placement, false,
          "Fall back to another device when the requested one cannot run a node");
ABSL_FLAG(int64_t, timeout_ms, 0, "Per-step deadline in ms (0: none)");
ABSL_FLAG(std::string, timeline, "",
          "Write the last step's timeline (Chrome trace JSON) to this file");
ABSL_FLAG(int, max_entries, 16, "Values printed per tensor");
ABSL_FLAG(std::string, output_dir, "",
          "After the last step, write each fetched tensor to this directory "
          "(created if missing) as <name>.npy, or <name>.pb (a binary "
          "TensorProto) for a dtype .npy cannot hold such as bfloat16. <name> "
          "is the fetch's node name with each '/' written '+', then '_' and "
          "the output index: 'x' and 'x:0' -> x_0.npy, 'scope/y:1' -> "
          "scope+y_1.npy (other characters outside [A-Za-z0-9_.-] as %XX)");

namespace stepflow {
namespace {

int Fail(const absl::Status& s, absl::string_view what) {
  absl::FPrintF(stderr, "run_graph: %s: %s\n", what, s.ToString());
  return 1;
}

absl::Status WriteTimeline(const RunMetadata& metadata, const std::string& path) {
  std::string json;
  TimelineSummary summary;
  absl::Status s = StepStatsToChromeTrace(metadata.step_stats(),
                                          absl::GetFlag(FLAGS_graph), &json, &summary);
  if (!s.ok()) return s;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  absl::FPrintF(stderr,
                "timeline: %d kernels on %d devices, %d transfers -> %s\n",
                summary.kernels, summary.lanes, summary.flows, path);
  return absl::OkStatus();
}

// The feeds whose node the nodes `targets` depend on (through data or
// control inputs) in `graph`.
Session::FeedList FeedsNeededBy(const GraphDef& graph,
                                const std::vector<std::string>& targets,
                                const Session::FeedList& feeds) {
  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : graph.node()) by_name[node.name()] = &node;
  absl::flat_hash_set<std::string> needed;
  std::vector<std::string> stack;
  for (const std::string& t : targets) stack.push_back(ParseTensorName(t).node);
  while (!stack.empty()) {
    std::string name = std::move(stack.back());
    stack.pop_back();
    auto it = by_name.find(name);
    if (it == by_name.end() || !needed.insert(name).second) continue;
    for (const std::string& input : it->second->input()) {
      stack.push_back(ParseTensorName(input).node);
    }
  }
  Session::FeedList used;
  for (const auto& feed : feeds) {
    if (needed.contains(ParseTensorName(feed.first).node)) used.push_back(feed);
  }
  return used;
}

absl::Status MakeDirectory(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("'", dir, "' exists and is not a directory"));
  }
  if (mkdir(dir.c_str(), 0777) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot create directory '", dir, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

int Main(const std::vector<char*>& positional) {
  // Under `bazel run` the binary starts in its runfiles tree; relative paths
  // (--graph, --output_dir, @FILE feeds) resolve against the directory the
  // user ran bazel from.
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  const std::string base_dir = cwd != nullptr ? cwd : "";
  auto resolve = [&base_dir](std::string path) {
    if (!path.empty() && path[0] != '/' && !base_dir.empty()) {
      path = absl::StrCat(base_dir, "/", path);
    }
    return path;
  };
  const std::string path = resolve(absl::GetFlag(FLAGS_graph));
  if (path.empty()) {
    absl::FPrintF(stderr, "run_graph: --graph is required\n%s\n",
                  absl::ProgramUsageMessage());
    return 1;
  }
  GraphDef graph;
  absl::Status s = ReadGraphDefFromFile(path, &graph);
  if (!s.ok()) return Fail(s, "loading the graph");
  std::vector<DeviceRequest> device_requests;
  for (const std::string& spec : absl::GetFlag(FLAGS_device)) {
    DeviceRequest request;
    s = ParseDeviceRequest(spec, &request);
    if (!s.ok()) return Fail(s, "parsing --device");
    device_requests.push_back(std::move(request));
  }
  s = ApplyDeviceRequests(device_requests, &graph);
  if (!s.ok()) return Fail(s, "applying --device");

  Session::FeedList feeds;
  for (size_t i = 1; i < positional.size(); ++i) {
    std::pair<std::string, Tensor> feed;
    s = ParseFeed(positional[i], graph, &feed, base_dir);
    if (!s.ok()) return Fail(s, "parsing feeds");
    feeds.push_back(std::move(feed));
  }
  const std::vector<std::string> fetches = absl::GetFlag(FLAGS_fetch);
  // A --target entry "scheme://..." is the session target (as in
  // tf.Session(target=...)); node names cannot contain "://".
  std::vector<std::string> targets;
  std::string session_target = absl::GetFlag(FLAGS_session_target);
  for (const std::string& t : absl::GetFlag(FLAGS_target)) {
    if (!absl::StrContains(t, "://")) {
      targets.push_back(t);
      continue;
    }
    if (!session_target.empty() && session_target != t) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
                      "two session targets: '", session_target, "' and '",
                      t, "'")),
                  "flags");
    }
    session_target = t;
  }
  const int steps = absl::GetFlag(FLAGS_steps);
  if (steps < 1) return Fail(absl::InvalidArgumentError("--steps must be >= 1"), "flags");
  if (absl::GetFlag(FLAGS_cpus) < 1) {
    return Fail(absl::InvalidArgumentError("--cpus must be >= 1"), "flags");
  }

  std::unique_ptr<RealEnv> real_env =
      RealEnv::Create(absl::GetFlag(FLAGS_inter_op_threads));
  SessionOptions options;
  options.env = real_env->env();
  options.target = session_target;
  (*options.config.mutable_device_count())["CPU"] = absl::GetFlag(FLAGS_cpus);
  options.config.set_log_device_placement(absl::GetFlag(FLAGS_log_device_placement));
  options.config.set_allow_soft_placement(absl::GetFlag(FLAGS_allow_soft_placement));
  options.config.set_operation_timeout_in_ms(absl::GetFlag(FLAGS_timeout_ms));

  std::unique_ptr<Session> session;
  s = NewSession(options, &session);
  if (!s.ok()) return Fail(s, "creating the session");
  s = session->Create(graph);
  if (!s.ok()) return Fail(s, "creating the graph");

  const std::string output_dir = resolve(absl::GetFlag(FLAGS_output_dir));
  if (!output_dir.empty()) {
    s = MakeDirectory(output_dir);
    if (!s.ok()) return Fail(s, "--output_dir");
  }

  std::vector<Tensor> outputs;
  const std::vector<std::string> init = absl::GetFlag(FLAGS_init);
  if (!init.empty()) {
    s = session->Run(FeedsNeededBy(graph, init, feeds), {}, init, &outputs);
    if (!s.ok()) return Fail(s, "running --init");
  }
  if (fetches.empty() && targets.empty()) {
    return Fail(absl::InvalidArgumentError("nothing to do: give --fetch and/or --target"),
                "flags");
  }
  // With --target, each step runs the targets (e.g. a training op) and the
  // fetches are evaluated in their own Run at each report point, so a fetch
  // never races with the update the step makes. Without --target each step
  // is a plain fetch.
  const int print_every = absl::GetFlag(FLAGS_print_every);
  const int max_entries = absl::GetFlag(FLAGS_max_entries);
  RunOptions run_options;
  auto report = [&](int step) -> absl::Status {
    if (fetches.empty()) return absl::OkStatus();
    if (!targets.empty()) {
      absl::Status st = session->Run(run_options, feeds, fetches, {}, &outputs, nullptr);
      if (!st.ok()) return st;
    }
    if (steps > 1) absl::PrintF("step %d:\n", step);
    for (size_t i = 0; i < fetches.size(); ++i) {
      absl::PrintF("%s = %s\n", fetches[i], outputs[i].SummarizeValue(max_entries));
    }
    std::fflush(stdout);  // Progress reports show up as they happen.
    return absl::OkStatus();
  };
  const std::string timeline_path = absl::GetFlag(FLAGS_timeline);
  for (int step = 1; step <= steps; ++step) {
    RunOptions step_options = run_options;
    RunMetadata metadata;
    const bool trace = step == steps && !timeline_path.empty();
    if (trace) step_options.set_trace_level(RunOptions::FULL_TRACE);
    s = targets.empty()
            ? session->Run(step_options, feeds, fetches, {}, &outputs, &metadata)
            : session->Run(step_options, feeds, {}, targets, &outputs, &metadata);
    if (!s.ok()) return Fail(s, absl::StrCat("running step ", step));
    if (trace) {
      s = WriteTimeline(metadata, timeline_path);
      if (!s.ok()) return Fail(s, "writing --timeline");
    }
    if (step == steps || (print_every > 0 && step % print_every == 0)) {
      s = report(step);
      if (!s.ok()) return Fail(s, absl::StrCat("fetching after step ", step));
    }
  }
  // The last report left the fetched values in `outputs`.
  for (size_t i = 0; !output_dir.empty() && i < fetches.size(); ++i) {
    std::string written;
    s = WriteFetchFile(output_dir, fetches[i], outputs[i], &written);
    if (!s.ok()) return Fail(s, "writing --output_dir");
    if (absl::EndsWith(written, ".pb")) {
      absl::FPrintF(stderr,
                    "run_graph: %s is %s, which .npy cannot hold: wrote it "
                    "as a binary TensorProto to %s\n",
                    fetches[i], DataTypeString(outputs[i].dtype()), written);
    }
  }
  s = session->Close();
  if (!s.ok()) return Fail(s, "closing the session");
  return 0;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs a TensorFlow GraphDef.\n"
      "  run_graph --graph=FILE [--fetch=t1,t2] [--target=n] [name=value ...]");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  stepflow::TuneMallocForTensors();
  return stepflow::Main(positional);
}
