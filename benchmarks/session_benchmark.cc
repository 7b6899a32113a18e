// Per-step overhead of a session: Run of a cached one-op graph.
//
//   bazel run //benchmarks:session_benchmark -- --benchmark_min_time=0.2
//   bazel run --define=with_torch=1 //benchmarks:session_benchmark  # + peer
//
// The graph: x = Placeholder(float, scalar), one = Const(1.0), z = Add(x,
// one). Every iteration feeds a scalar to x and fetches z; the first Run
// (which prunes, places, partitions and builds the executors) happens
// before timing, so the loop measures the cached path. `per_run` counters
// are seconds per Run (printed with an SI prefix, e.g. "9.1u").
//
//  * BM_SessionRun/<threads>: DirectSession::Run on a RealEnv with that
//    many inter-op threads.
//  * BM_SessionRunCallable/<threads>: the same step through MakeCallable /
//    RunCallable (no name lookups per step).
//  * BM_CApiSessionRun: TF_SessionRun through the C API (the C API's own
//    process Env: one inter-op thread per hardware thread).
//  * BM_TorchEagerAdd (only with --define=with_torch=1): libtorch's eager
//    at::add of two one-element float tensors, the peer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "benchmarks/add_one_step.h"
#include "benchmarks/state_util.h"
#include "benchmarks/stepflow_session.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/common/session.h"
#include "runtime/framework/tensor.h"

#ifdef STEPFLOW_BENCH_WITH_TORCH
#include <ATen/ATen.h>
#endif

namespace stepflow::bench {
namespace {

// The op of z = x + 1 (TensorFlow 1's `+`).
constexpr char kAddOp[] = "Add";

// Skips the row unless `s` is OK and `out` is z = 3.
bool CheckResult(benchmark::State& state, absl::Status s,
                 const std::vector<Tensor>& out) {
  if (s.ok()) s = CheckAddOne(out);
  if (!s.ok()) SkipWithStatus(state, s);
  return s.ok();
}

void BM_SessionRun(benchmark::State& state) {
  TimeAddOneSessionRun(state, kAddOp);
}

void BM_SessionRunCallable(benchmark::State& state) {
  StepflowSession f;
  absl::Status s =
      f.Create(AddOneGraph(kAddOp), static_cast<int>(state.range(0)));
  if (!s.ok()) return SkipWithStatus(state, s);
  CallableOptions opts;
  opts.add_feed("x");
  opts.add_fetch("z");
  Session::CallableHandle handle = 0;
  s = f.session->MakeCallable(opts, &handle);
  if (!s.ok()) return SkipWithStatus(state, s);
  const std::vector<Tensor> feeds = {Tensor::Scalar<float>(2.0f)};
  std::vector<Tensor> out;
  s = f.session->RunCallable(handle, feeds, &out, nullptr);  // Warm-up.
  if (!CheckResult(state, s, out)) return;
  for (auto _ : state) {
    s = f.session->RunCallable(handle, feeds, &out, nullptr);
    if (!s.ok()) break;
  }
  if (!CheckResult(state, s, out)) return;
  f.session->ReleaseCallable(handle).IgnoreError();
  SetSecondsPerIteration(state, "per_run");
}

void BM_CApiSessionRun(benchmark::State& state) {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  const std::string bytes = AddOneGraph(kAddOp).SerializeAsString();
  TF_Buffer* buf = TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_GraphImportGraphDef(graph, buf, nullptr, status);
  TF_DeleteBuffer(buf);
  TF_Session* session = nullptr;
  if (TF_GetCode(status) == TF_OK) {
    TF_SessionOptions* opts = TF_NewSessionOptions();
    session = TF_NewSession(graph, opts, status);
    TF_DeleteSessionOptions(opts);
  }
  TF_Tensor* x_value = TF_AllocateTensor(TF_FLOAT, nullptr, 0, sizeof(float));
  *static_cast<float*>(TF_TensorData(x_value)) = 2.0f;
  const TF_Output feed = {TF_GraphOperationByName(graph, "x"), 0};
  const TF_Output fetch = {TF_GraphOperationByName(graph, "z"), 0};
  float last = 0;
  if (TF_GetCode(status) == TF_OK) {
    for (auto _ : state) {
      TF_Tensor* z_value = nullptr;
      TF_SessionRun(session, nullptr, &feed, &x_value, 1, &fetch, &z_value, 1,
                    nullptr, 0, nullptr, status);
      if (TF_GetCode(status) != TF_OK) break;
      last = *static_cast<float*>(TF_TensorData(z_value));
      TF_DeleteTensor(z_value);
    }
  }
  if (TF_GetCode(status) != TF_OK) {
    state.SkipWithError(TF_Message(status));
  } else if (last != 3.0f) {
    state.SkipWithError("wrong value fetched");
  }
  TF_DeleteTensor(x_value);
  if (session != nullptr) {
    TF_CloseSession(session, status);
    TF_DeleteSession(session, status);
  }
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  SetSecondsPerIteration(state, "per_run");
}

BENCHMARK(BM_SessionRun)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_SessionRunCallable)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();
BENCHMARK(BM_CApiSessionRun)->UseRealTime();

#ifdef STEPFLOW_BENCH_WITH_TORCH
void BM_TorchEagerAdd(benchmark::State& state) {
  at::Tensor a = at::full({1}, 2.0f);
  at::Tensor b = at::full({1}, 1.0f);
  at::Tensor c;
  for (auto _ : state) {
    c = at::add(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  if (c.item<float>() != 3.0f) state.SkipWithError("wrong sum");
  SetSecondsPerIteration(state, "per_run");
}
BENCHMARK(BM_TorchEagerAdd)->UseRealTime();
#endif

}  // namespace
}  // namespace stepflow::bench
