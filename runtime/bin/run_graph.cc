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
//             --init=init --target=train --steps=201 --fetch=w,b x=[...]
//             y=[...]
//
// --session_target=grpc://host:port (or a --target entry of that form)
// runs on a cluster of grpc_server tasks instead of in this process;
// --tls_cert, --tls_key and --tls_ca (PEM files) talk to a cluster whose
// servers require mutual TLS.
//
// A feed value "@FILE" is read from a .npy file (numpy.save) or a binary
// TensorProto, for values too big for a command line (runtime/bin/
// feed_parser.h); --output_dir=DIR writes each fetched tensor after the
// last step to DIR as .npy (runtime/bin/tensor_file.h says how fetch names
// map to file names), for numpy.load:
//
//   run_graph --graph=model.pb --fetch=logits --output_dir=out
//   images=@batch.npy
//
// --init runs its nodes once, before the steps, with the command-line feeds
// that those nodes depend on (a Saver restore's filename, an initial value
// fed to an Assign); the others would be unused there.
//
// --timeline=FILE traces the last step (RunOptions FULL_TRACE) and writes
// it as Chrome trace JSON (runtime/client/timeline.h): open it in
// chrome://tracing, Perfetto or tools/timeline_viewer/viewer.html.
//
// --saved_model=DIR loads a SavedModel instead (runtime/saved_model/
// loader.h: the MetaGraph tagged --tags, its variables restored and its
// init op run) and runs its --signature: feeds name the signature's input
// keys, --fetch its output keys (default: every output, sorted), and
// values print and write under those keys:
//
//   run_graph --saved_model=export --tags=serve
//             --signature=serving_default x=[[1,2,3,4]]
//
// Exit status: 0 on success; 1 on any error, with the error on stderr.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_set>
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
#include "runtime/env/real/memory_limit.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/memory_budget.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/graph/graph_def_io.h"
#include "runtime/saved_model/loader.h"
#include "runtime/saved_model/signature.h"

ABSL_FLAG(std::string, graph, "", "GraphDef file (binary .pb or text .pbtxt)");
ABSL_FLAG(std::string, saved_model, "",
          "SavedModel directory to load instead of --graph; feeds and "
          "--fetch then name the signature's input and output keys");
ABSL_FLAG(std::vector<std::string>, tags, {"serve"},
          "With --saved_model: the comma-separated tags of the MetaGraph");
ABSL_FLAG(std::string, signature, "serving_default",
          "With --saved_model: the signature to run");
ABSL_FLAG(
    std::vector<std::string>, fetch, {},
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
ABSL_FLAG(
    int, print_every, 0,
    "With --steps > 1, print the fetches every N steps (0: after the last)");
ABSL_FLAG(std::string, session_target, "",
          "Session target: \"\" for local, grpc://host:port for distributed");
ABSL_FLAG(std::string, tls_cert, "",
          "grpc:// sessions: PEM certificate (chain) presented to the "
          "cluster (mutual TLS, with --tls_key and --tls_ca)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "",
          "grpc:// sessions: PEM CA that signed the servers' certificates "
          "(turns TLS on)");
ABSL_FLAG(int, cpus, 1, "Number of CPU devices (ConfigProto.device_count)");
ABSL_FLAG(int, inter_op_threads, 0, "Inter-op threads (0 = number of cores)");
ABSL_FLAG(std::string, memory_limit, "",
          "Bytes of tensors a local session may hold (4G, 512M, ...; 0: no "
          "limit); default: 80% of physical memory or of ulimit -v");
ABSL_FLAG(bool, log_device_placement, false, "Print each node's device");
ABSL_FLAG(
    bool, allow_soft_placement, false,
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

absl::Status WriteTimeline(const RunMetadata& metadata,
                           const std::string& path) {
  std::string json;
  TimelineSummary summary;
  absl::Status s = StepStatsToChromeTrace(
      metadata.step_stats(), absl::GetFlag(FLAGS_graph), &json, &summary);
  if (!s.ok()) return s;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json;
  out.close();
  if (!out)
    return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
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

// One run of the binary. Each phase returns the error it stops at, with
// `what` naming the phase for the message ("run_graph: <what>: <error>").
class RunGraph {
 public:
  explicit RunGraph(std::vector<char*> positional)
      : positional_(std::move(positional)) {
    // Under `bazel run` the binary starts in its runfiles tree; relative
    // paths (--graph, --output_dir, @FILE feeds) resolve against the
    // directory the user ran bazel from.
    const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
    base_dir_ = cwd != nullptr ? cwd : "";
  }

  int Main() {
    const bool has_graph = !absl::GetFlag(FLAGS_graph).empty();
    const bool has_saved_model = !absl::GetFlag(FLAGS_saved_model).empty();
    if (has_graph == has_saved_model) {
      absl::FPrintF(stderr, "run_graph: %s\n%s\n",
                    has_graph ? "give --graph or --saved_model, not both"
                              : "--graph is required (or --saved_model)",
                    absl::ProgramUsageMessage());
      return 1;
    }
    absl::Status s;
    if (absl::GetFlag(FLAGS_saved_model).empty()) {
      s = LoadGraph();
      if (s.ok()) s = ParseFeeds();
      if (s.ok()) s = ParseTargetsAndSteps();
      if (s.ok()) s = CreateSession();
    } else {
      s = ParseTargetsAndSteps();
      if (s.ok()) s = LoadSavedModelSession();
      if (s.ok()) s = ParseSignatureFeedsAndFetches();
    }
    if (s.ok()) s = MakeOutputDir();
    if (s.ok()) s = RunInit();
    if (s.ok()) s = RunSteps();
    if (s.ok()) s = WriteOutputs();
    if (s.ok()) {
      what_ = "closing the session";
      s = session_->Close();
    }
    return s.ok() ? 0 : Fail(s, what_);
  }

 private:
  std::string Resolve(std::string path) const {
    if (!path.empty() && path[0] != '/' && !base_dir_.empty()) {
      path = absl::StrCat(base_dir_, "/", path);
    }
    return path;
  }

  // --graph, with the --device requests applied.
  absl::Status LoadGraph() {
    what_ = "loading the graph";
    absl::Status s =
        ReadGraphDefFromFile(Resolve(absl::GetFlag(FLAGS_graph)), &graph_);
    if (!s.ok()) return s;
    what_ = "parsing --device";
    std::vector<DeviceRequest> device_requests;
    for (const std::string& spec : absl::GetFlag(FLAGS_device)) {
      DeviceRequest request;
      s = ParseDeviceRequest(spec, &request);
      if (!s.ok()) return s;
      device_requests.push_back(std::move(request));
    }
    what_ = "applying --device";
    return ApplyDeviceRequests(device_requests, &graph_);
  }

  absl::Status ParseFeeds() {
    what_ = "parsing feeds";
    for (size_t i = 1; i < positional_.size(); ++i) {
      std::pair<std::string, Tensor> feed;
      absl::Status s = ParseFeed(positional_[i], graph_, &feed, base_dir_);
      if (!s.ok()) return s;
      feeds_.push_back(std::move(feed));
    }
    return absl::OkStatus();
  }

  // A --target entry "scheme://..." is the session target (as in
  // tf.Session(target=...)); node names cannot contain "://".
  absl::Status ParseTargetsAndSteps() {
    what_ = "flags";
    fetches_ = absl::GetFlag(FLAGS_fetch);
    session_target_ = absl::GetFlag(FLAGS_session_target);
    for (const std::string& t : absl::GetFlag(FLAGS_target)) {
      if (!absl::StrContains(t, "://")) {
        targets_.push_back(t);
        continue;
      }
      if (!session_target_.empty() && session_target_ != t) {
        return absl::InvalidArgumentError(absl::StrCat(
            "two session targets: '", session_target_, "' and '", t, "'"));
      }
      session_target_ = t;
    }
    steps_ = absl::GetFlag(FLAGS_steps);
    if (steps_ < 1) return absl::InvalidArgumentError("--steps must be >= 1");
    if (absl::GetFlag(FLAGS_cpus) < 1) {
      return absl::InvalidArgumentError("--cpus must be >= 1");
    }
    absl::Status s = CheckThreadCountFlag(
        "inter_op_threads", absl::GetFlag(FLAGS_inter_op_threads));
    if (!s.ok()) return s;
    memory_limit_ = DefaultProcessMemoryLimit();
    if (!absl::GetFlag(FLAGS_memory_limit).empty()) {
      s = ParseMemoryLimit(absl::GetFlag(FLAGS_memory_limit), &memory_limit_);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  SessionOptions MakeSessionOptions() {
    real_env_ = RealEnv::Create(absl::GetFlag(FLAGS_inter_op_threads));
    process_memory_ = new MemoryBudget("run_graph", memory_limit_);
    SessionOptions options;
    options.env = real_env_->env();
    options.process_memory = process_memory_;
    options.target = session_target_;
    options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
    options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
    options.tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
    (*options.config.mutable_device_count())["CPU"] = absl::GetFlag(FLAGS_cpus);
    options.config.set_log_device_placement(
        absl::GetFlag(FLAGS_log_device_placement));
    options.config.set_allow_soft_placement(
        absl::GetFlag(FLAGS_allow_soft_placement));
    options.config.set_operation_timeout_in_ms(absl::GetFlag(FLAGS_timeout_ms));
    return options;
  }

  absl::Status CreateSession() {
    const SessionOptions options = MakeSessionOptions();
    what_ = "creating the session";
    absl::Status s = NewSession(options, &session_);
    if (!s.ok()) return s;
    what_ = "creating the graph";
    // What --init needs from the GraphDef is read now, so the GraphDef can
    // go once the session has its own copy (a large graph is not held
    // twice while it runs).
    init_feeds_ = FeedsNeededBy(graph_, absl::GetFlag(FLAGS_init), feeds_);
    s = session_->Create(std::move(graph_));
    GraphDef().Swap(&graph_);
    return s;
  }

  // --saved_model: the bundle's session and graph become this run's.
  absl::Status LoadSavedModelSession() {
    what_ = "flags";
    if (!absl::GetFlag(FLAGS_device).empty() ||
        !absl::GetFlag(FLAGS_init).empty()) {
      return absl::InvalidArgumentError(
          "--device and --init do not apply to --saved_model (the SavedModel "
          "restores and initializes itself)");
    }
    const SessionOptions options = MakeSessionOptions();
    const std::vector<std::string> tag_list = absl::GetFlag(FLAGS_tags);
    const std::unordered_set<std::string> tags(tag_list.begin(),
                                               tag_list.end());
    what_ = "loading the SavedModel";
    SavedModelBundle bundle;
    absl::Status s = LoadSavedModel(options, RunOptions(),
                                    Resolve(absl::GetFlag(FLAGS_saved_model)),
                                    tags, &bundle);
    if (!s.ok()) return s;
    session_ = std::move(bundle.session);
    meta_graph_def_ = std::move(bundle.meta_graph_def);
    graph_ = meta_graph_def_.graph_def();
    return absl::OkStatus();
  }

  // Feeds "key=value" become the signature's input tensors; --fetch keys
  // (default: every output key, sorted) its output tensors, reported under
  // the keys.
  absl::Status ParseSignatureFeedsAndFetches() {
    const std::string key = absl::GetFlag(FLAGS_signature);
    what_ = "--signature";
    const SignatureDef* signature;
    absl::Status s = FindSignature(meta_graph_def_, key, &signature);
    if (!s.ok()) return s;
    what_ = "parsing feeds";
    for (size_t i = 1; i < positional_.size(); ++i) {
      const std::string spec = positional_[i];
      const size_t eq = spec.find('=');
      if (eq == std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("feed '", spec, "' is not key=value"));
      }
      TensorInfo info;
      s = SignatureInputTensor(*signature, key, spec.substr(0, eq), &info);
      if (!s.ok()) return s;
      std::pair<std::string, Tensor> feed;
      s = ParseFeed(absl::StrCat(info.name(), spec.substr(eq)), graph_, &feed,
                    base_dir_);
      if (!s.ok()) return s;
      feeds_.push_back(std::move(feed));
    }
    what_ = "--fetch";
    fetch_labels_ = fetches_;
    if (fetch_labels_.empty()) {
      for (const auto& output : signature->outputs()) {
        fetch_labels_.push_back(output.first);
      }
      std::sort(fetch_labels_.begin(), fetch_labels_.end());
    }
    fetches_.clear();
    for (const std::string& label : fetch_labels_) {
      TensorInfo info;
      s = SignatureOutputTensor(*signature, key, label, &info);
      if (!s.ok()) return s;
      fetches_.push_back(info.name());
    }
    return absl::OkStatus();
  }

  absl::Status MakeOutputDir() {
    if (fetch_labels_.empty()) fetch_labels_ = fetches_;
    output_dir_ = Resolve(absl::GetFlag(FLAGS_output_dir));
    what_ = "--output_dir";
    return output_dir_.empty() ? absl::OkStatus() : MakeDirectory(output_dir_);
  }

  absl::Status RunInit() {
    const std::vector<std::string> init = absl::GetFlag(FLAGS_init);
    if (!init.empty()) {
      what_ = "running --init";
      absl::Status s = session_->Run(init_feeds_, {}, init, &outputs_);
      if (!s.ok()) return s;
    }
    if (fetches_.empty() && targets_.empty()) {
      what_ = "flags";
      return absl::InvalidArgumentError(
          "nothing to do: give --fetch and/or --target");
    }
    return absl::OkStatus();
  }

  // With --target, each step runs the targets (e.g. a training op) and the
  // fetches are evaluated in their own Run at each report point, so a fetch
  // never races with the update the step makes. Without --target each step
  // is a plain fetch.
  absl::Status RunSteps() {
    const int print_every = absl::GetFlag(FLAGS_print_every);
    const std::string timeline_path = absl::GetFlag(FLAGS_timeline);
    for (int step = 1; step <= steps_; ++step) {
      RunOptions options;
      RunMetadata metadata;
      const bool trace = step == steps_ && !timeline_path.empty();
      if (trace) options.set_trace_level(RunOptions::FULL_TRACE);
      what_ = absl::StrCat("running step ", step);
      absl::Status s = targets_.empty()
                           ? session_->Run(options, feeds_, fetches_, {},
                                           &outputs_, &metadata)
                           : session_->Run(options, feeds_, {}, targets_,
                                           &outputs_, &metadata);
      if (!s.ok()) return s;
      if (trace) {
        what_ = "writing --timeline";
        s = WriteTimeline(metadata, timeline_path);
        if (!s.ok()) return s;
      }
      if (step == steps_ || (print_every > 0 && step % print_every == 0)) {
        what_ = absl::StrCat("fetching after step ", step);
        s = Report(step);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  absl::Status Report(int step) {
    if (fetches_.empty()) return absl::OkStatus();
    if (!targets_.empty()) {
      absl::Status s =
          session_->Run(RunOptions(), feeds_, fetches_, {}, &outputs_, nullptr);
      if (!s.ok()) return s;
    }
    if (steps_ > 1) absl::PrintF("step %d:\n", step);
    const int max_entries = absl::GetFlag(FLAGS_max_entries);
    for (size_t i = 0; i < fetches_.size(); ++i) {
      absl::PrintF("%s = %s\n", fetch_labels_[i],
                   outputs_[i].SummarizeValue(max_entries));
    }
    std::fflush(stdout);  // Progress reports show up as they happen.
    return absl::OkStatus();
  }

  // The last report left the fetched values in `outputs_`.
  absl::Status WriteOutputs() {
    what_ = "writing --output_dir";
    for (size_t i = 0; !output_dir_.empty() && i < fetches_.size(); ++i) {
      std::string written;
      absl::Status s =
          WriteFetchFile(output_dir_, fetch_labels_[i], outputs_[i], &written);
      if (!s.ok()) return s;
      if (absl::EndsWith(written, ".pb")) {
        absl::FPrintF(stderr,
                      "run_graph: %s is %s, which .npy cannot hold: wrote it "
                      "as a binary TensorProto to %s\n",
                      fetch_labels_[i], DataTypeString(outputs_[i].dtype()),
                      written);
      }
    }
    return absl::OkStatus();
  }

  const std::vector<char*> positional_;
  std::string base_dir_;
  std::string what_;
  // The graph as read; with --graph, emptied once the session is created.
  GraphDef graph_;
  Session::FeedList feeds_;
  // The feeds --init depends on (the rest would be unused feeds).
  Session::FeedList init_feeds_;
  std::vector<std::string> fetches_;
  // What reports and --output_dir call each fetch: its name, or with
  // --saved_model its signature output key.
  std::vector<std::string> fetch_labels_;
  MetaGraphDef meta_graph_def_;
  std::vector<std::string> targets_;
  std::string session_target_;
  int steps_ = 1;
  std::string output_dir_;
  std::unique_ptr<RealEnv> real_env_;
  int64_t memory_limit_ = 0;
  // Charged by the session's devices; never freed (fetched tensors may
  // outlive the session and release into it).
  MemoryBudget* process_memory_ = nullptr;
  std::unique_ptr<Session> session_;
  std::vector<Tensor> outputs_;
};

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs a TensorFlow GraphDef or SavedModel.\n"
      "  run_graph --graph=FILE [--fetch=t1,t2] [--target=n] [name=value ...]\n"
      "  run_graph --saved_model=DIR [--tags=serve] "
      "[--signature=serving_default] [--fetch=key] [key=value ...]");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  stepflow::TuneMallocForTensors();
  return stepflow::RunGraph(std::move(positional)).Main();
}
