// TensorFlow as a peer: the same GraphDef, the same feeds, run by
// TensorFlow and by stepflow in one process and one run.
//
//   export STEPFLOW_TF_PYTHON=$(tools/install_tf.sh)
//   bazel run -c opt //benchmarks:tf_peer_benchmark -- [--cases=DIR]
//
// TensorFlow runs through its C API, taken at run time from the wheel's
// shared library: site-packages/tensorflow/libtensorflow_cc.so.2 of the
// virtualenv whose interpreter $STEPFLOW_TF_PYTHON names (or, failing
// that, wherever that interpreter finds the tensorflow package). It is
// dlopen()ed, never linked (benchmarks/tf_c_api_library.h): stepflow's own
// C API (runtime/c/c_api.h), linked into this binary, exports the same TF_*
// names with the same signatures, so the pointer types come from that
// header and one piece of code (benchmarks/c_session.h) drives either
// implementation. Without TensorFlow every TensorFlow row is skipped with a
// message naming tools/install_tf.sh; the stepflow rows still run.
//
// TensorFlow runs as users run it: grappler at its defaults, oneDNN as
// TF_ENABLE_ONEDNN_OPTS leaves it (unset: TensorFlow's default), and a
// ConfigProto (TF_SetConfig) with intra- and inter-op threads set to the
// row's thread count. So that rows with 1 and 2 threads can share a
// process, the config also sets use_per_session_threads and the binary sets
// TF_OVERRIDE_GLOBAL_THREADPOOL=1 (unless already set) before loading
// TensorFlow: each session then owns pools of its row's size, instead of
// every session sharing the pools the process's first session sized. The
// benchmark context records the library, its version, whether oneDNN is on
// (tensorflow::IsMKLEnabled()) and those settings.
//
// Rows (wall time; each TensorFlow row has its stepflow twin):
//  * BM_TfSessionRun/threads: TF_SessionRun of x = Placeholder(float,
//    scalar), z = AddV2(x, Const 1), feeding x and fetching z, in
//    TensorFlow. BM_StepflowCApiSessionRun/threads: the same calls into
//    stepflow's C API (the session on a RealEnv of `threads` inter-op
//    threads); BM_StepflowSessionRun/threads: stepflow's C++
//    Session::Run. Feeds, fetch names and tensors are prepared once; the
//    first Run happens before timing. `per_run`: seconds per Run.
//  * BM_TfMlpStep/batch/threads and BM_StepflowMlpStep/batch/threads: one
//    training step of testing/mlp_graph.h's 784-256-256-10 float MLP on
//    its fixed batch of 64 or 512 (feed x and labels, fetch loss, target
//    train) after `init`. Both start from the weights stepflow's `init`
//    gives: TensorFlow runs its own `init` (stepflow's random ops draw
//    TensorFlow's Philox streams, so the values should be the same) and,
//    unless its variables then equal stepflow's bit for bit, loads
//    stepflow's through each variable's initializer output and Assign
//    (Variable.load()); the row's label says which. Its first two losses
//    must equal stepflow's within 1e-4 relative before timing.
//    `per_step`: seconds per step.
//  * With --cases=DIR (oracle cases, testing/tf_oracle/README.md;
//    benchmarks/tf_peer_zoo.h), for each inference case (a GraphDef, no
//    targets, one step) under DIR:
//    BM_TfInference/<case>/batch/threads and
//    BM_StepflowInference/<case>/batch/threads, one Run of the case's
//    fetches with its feeds (its init targets, if any, run once first).
//    batch:1 is the case's own feeds; batch:32 replicates every feed whose
//    placeholder leaves the leading dimension unknown along that dimension
//    to 32 rows (registered only when some feed does). Before timing, each
//    row's fetched values must match TensorFlow's for the same feeds
//    (testing/tf_oracle/compare.h's tolerance), or, without TensorFlow,
//    the case's expected/ result at batch 1. A case stepflow cannot import
//    or run gets one skipped row, BM_StepflowInference/<case>, with the
//    error. `per_run`: seconds per Run.
//  * With --cases=DIR, for each training case (targets, fetches, several
//    steps; benchmarks/tf_peer_training.h): BM_TfTraining/<case>/threads
//    and BM_StepflowTraining/<case>/threads, one training step per
//    iteration after the init targets, each side's first two steps
//    checked against the case's expected/ losses. `per_step`: seconds per
//    step.
//
// benchmarks/report.py prints the ratios ours / TensorFlow.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "benchmarks/add_one_step.h"
#include "benchmarks/c_session.h"
#include "benchmarks/mlp_fixture.h"
#include "benchmarks/run_benchmarks.h"
#include "benchmarks/state_util.h"
#include "benchmarks/tf_c_api_library.h"
#include "benchmarks/tf_peer_sessions.h"
#include "benchmarks/tf_peer_zoo.h"
#include "runtime/common/session.h"
#include "runtime/framework/tensor.h"
#include "testing/mlp_graph.h"

namespace stepflow::bench {
namespace {

// ---------------------------------------------------------------------------
// 1. One-op Session::Run latency.

// session_benchmark's graph with the op TensorFlow now emits for `+`.
constexpr char kAddOp[] = "AddV2";

// The timed loop over a prepared C API session of AddOneGraph.
void RunAddOneLoop(benchmark::State& state, CSession* session) {
  absl::Status s =
      session->Prepare({{"x", Tensor::Scalar<float>(2.0f)}}, {"z"}, {});
  if (s.ok()) s = session->RunPrepared();  // Warm-up.
  for (auto _ : state) {
    if (!s.ok()) break;
    s = session->RunPrepared();
  }
  std::vector<Tensor> out;
  if (s.ok()) s = session->Fetched(&out);
  if (s.ok()) s = CheckAddOne(out);
  if (!s.ok()) return SkipWithStatus(state, s);
  SetSecondsPerIteration(state, "per_run");
}

void BM_TfSessionRun(benchmark::State& state) {
  std::unique_ptr<CSession> session;
  absl::Status s = NewTfSession(AddOneGraph(kAddOp),
                                static_cast<int>(state.range(0)), &session);
  if (!s.ok()) return SkipWithStatus(state, s);
  RunAddOneLoop(state, session.get());
}

void BM_StepflowCApiSessionRun(benchmark::State& state) {
  StepflowCSession f;
  absl::Status s =
      f.Create(AddOneGraph(kAddOp), static_cast<int>(state.range(0)));
  if (!s.ok()) return SkipWithStatus(state, s);
  RunAddOneLoop(state, f.session.get());
}

void BM_StepflowSessionRun(benchmark::State& state) {
  TimeAddOneSessionRun(state, kAddOp);
}

BENCHMARK(BM_TfSessionRun)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_StepflowCApiSessionRun)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();
BENCHMARK(BM_StepflowSessionRun)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();

// ---------------------------------------------------------------------------
// 2. The MLP training step.

constexpr double kLossRtol = 1e-4;

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() &&
         a.shape().dim_sizes() == b.shape().dim_sizes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

bool AllSameBits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameBits(a[i], b[i])) return false;
  }
  return true;
}

// Gives TensorFlow's session of ref's graph stepflow's initial weights
// `want`: runs its own `init` and, unless that gives the same bits, loads
// `want` the way Variable.load() does (feed each initializer's output, run
// its Assign). *same_init: whether TensorFlow's `init` was enough.
absl::Status InitLikeStepflow(const MlpFixture& ref,
                              const std::vector<Tensor>& want, CSession* tf,
                              bool* same_init) {
  std::vector<Tensor> out, params;
  absl::Status s = tf->Run({}, {}, {ref.graph.init}, &out);
  if (s.ok()) s = tf->Run({}, ref.ParamNames(), {}, &params);
  if (!s.ok()) return s;
  *same_init = AllSameBits(params, want);
  if (*same_init) return absl::OkStatus();
  for (size_t i = 0; s.ok() && i < ref.graph.params.size(); ++i) {
    const MlpParam& p = ref.graph.params[i];
    s = tf->Run({{p.initial_value, want[i]}}, {}, {p.assign}, &out);
  }
  if (s.ok()) s = tf->Run({}, ref.ParamNames(), {}, &params);
  if (s.ok() && !AllSameBits(params, want)) {
    s = absl::InternalError("TensorFlow's variables differ after loading");
  }
  return s;
}

void BM_TfMlpStep(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  // Stepflow gives the reference: its initial weights and first two losses.
  MlpFixture ref(batch, 1);
  absl::Status s = ref.status;
  std::vector<Tensor> want_params, params;
  if (s.ok()) s = ref.session->Run({}, ref.ParamNames(), {}, &params);
  // Copies: a fetched variable shares its buffer, which steps update.
  for (const Tensor& p : params) want_params.push_back(p.DeepCopy());
  float ref_loss[2] = {0, 0};
  for (float& l : ref_loss) {
    if (s.ok()) s = ref.Step(&l);
  }
  std::unique_ptr<CSession> tf;
  if (s.ok()) s = NewTfSession(ref.graph.graph, threads, &tf);
  bool same_init = false;
  if (s.ok()) s = InitLikeStepflow(ref, want_params, tf.get(), &same_init);
  if (!s.ok()) return SkipWithStatus(state, s);
  state.SetLabel(same_init ? "TensorFlow's init == stepflow's"
                           : "stepflow's initial weights loaded");
  std::vector<Tensor> out;
  s = tf->Prepare(ref.feeds, {ref.graph.loss}, {ref.graph.train});
  for (float want : ref_loss) {  // Also the warm-up.
    if (s.ok()) s = tf->RunPrepared();
    if (s.ok()) s = tf->Fetched(&out);
    if (!s.ok()) return SkipWithStatus(state, s);
    const float got = out[0].scalar<float>();
    if (!SaneLoss(got) || std::fabs(got - want) > kLossRtol * std::fabs(want)) {
      state.SkipWithError(
          absl::StrCat("TensorFlow loss ", got, " != stepflow loss ", want)
              .c_str());
      return;
    }
  }
  for (auto _ : state) {
    if (!s.ok()) break;
    s = tf->RunPrepared();
  }
  if (s.ok()) s = tf->Fetched(&out);
  if (!s.ok()) return SkipWithStatus(state, s);
  const float last = out[0].scalar<float>();
  if (!SaneLoss(last) || !(last < ref_loss[0])) {
    state.SkipWithError("TensorFlow loss not finite or not decreasing");
    return;
  }
  state.counters["loss"] = last;
  SetSecondsPerIteration(state, "per_step");
}

void BM_StepflowMlpStep(benchmark::State& state) { TimeStepflowMlpStep(state); }

BENCHMARK(BM_TfMlpStep)->Apply(MlpStepArgs);
BENCHMARK(BM_StepflowMlpStep)->Apply(MlpStepArgs);

// ---------------------------------------------------------------------------
// main: the context lines about TensorFlow, and --cases=DIR.

// What the context lines say about TensorFlow (printed before any row).
void AddTensorFlowContext() {
  const TensorFlowLibrary& tf = LoadTensorFlow();
  if (!tf.status.ok()) {
    benchmark::AddCustomContext(
        "tensorflow", absl::StrCat("unavailable: ", tf.status.message()));
    return;
  }
  benchmark::AddCustomContext("tensorflow",
                              absl::StrCat(tf.version, " (", tf.path, ")"));
  benchmark::AddCustomContext("tf_onednn", tf.onednn);
  benchmark::AddCustomContext(
      "tf_threads",
      absl::StrCat(
          "intra = inter = the row's threads, use_per_session_threads, "
          "TF_OVERRIDE_GLOBAL_THREADPOOL=",
          tf.override_global_threadpool));
  benchmark::AddCustomContext("tf_grappler", "default (meta optimizer on)");
}

}  // namespace
}  // namespace stepflow::bench

// benchmarks/run_benchmarks.h's main, plus --cases=DIR and the TensorFlow
// context.
int main(int argc, char** argv) {
  std::string cases;
  stepflow::bench::BenchmarkMainHooks hooks;
  hooks.take_flag = [&cases](absl::string_view arg) {
    if (!absl::ConsumePrefix(&arg, "--cases=")) return false;
    cases = std::string(arg);
    return true;
  };
  hooks.setup = [&cases]() -> absl::Status {
    stepflow::bench::AddTensorFlowContext();
    if (cases.empty()) return absl::OkStatus();
    const absl::Status s = stepflow::bench::RegisterZooBenchmarks(cases);
    if (s.ok()) return s;
    return absl::Status(s.code(),
                        absl::StrCat("--cases=", cases, ": ", s.message()));
  };
  return stepflow::bench::RunBenchmarks(argc, argv, hooks);
}
