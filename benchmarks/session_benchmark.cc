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

#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"

#ifdef STEPFLOW_BENCH_WITH_TORCH
#include <ATen/ATen.h>
#endif

namespace stepflow::bench {
namespace {

GraphDef AddOneGraph() {
  GraphDef g;
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"] = float_type;
  (*x->mutable_attr())["shape"].mutable_shape();  // Scalar.
  NodeDef* one = g.add_node();
  one->set_name("one");
  one->set_op("Const");
  (*one->mutable_attr())["dtype"] = float_type;
  TensorProto* value = (*one->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(1.0f);
  NodeDef* z = g.add_node();
  z->set_name("z");
  z->set_op("Add");
  z->add_input("x");
  z->add_input("one");
  (*z->mutable_attr())["T"] = float_type;
  return g;
}

void SetPerRun(benchmark::State& state) {
  state.counters["per_run"] = benchmark::Counter(
      1.0, benchmark::Counter::kIsIterationInvariantRate |
               benchmark::Counter::kInvert);
}

// A DirectSession over its own RealEnv (the session goes first).
struct SessionFixture {
  explicit SessionFixture(int threads) : env(RealEnv::Create(threads)) {
    SessionOptions options;
    options.env = env->env();
    status = NewSession(options, &session);
    if (status.ok()) status = session->Create(AddOneGraph());
  }
  ~SessionFixture() {
    if (session != nullptr) session->Close().IgnoreError();
    session.reset();
    env.reset();
  }
  std::unique_ptr<RealEnv> env;
  std::unique_ptr<Session> session;
  absl::Status status;
};

bool CheckResult(benchmark::State& state, const absl::Status& s,
                 const std::vector<Tensor>& out, float expected) {
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return false;
  }
  if (out.size() != 1 || out[0].NumElements() != 1 ||
      out[0].flat<float>()(0) != expected) {
    state.SkipWithError("wrong value fetched");
    return false;
  }
  return true;
}

void BM_SessionRun(benchmark::State& state) {
  SessionFixture f(static_cast<int>(state.range(0)));
  if (!f.status.ok()) {
    state.SkipWithError(f.status.ToString().c_str());
    return;
  }
  const Session::FeedList feeds = {{"x", Tensor::Scalar<float>(2.0f)}};
  const std::vector<std::string> fetches = {"z"};
  std::vector<Tensor> out;
  absl::Status s = f.session->Run(feeds, fetches, {}, &out);  // Warm-up.
  if (!CheckResult(state, s, out, 3.0f)) return;
  for (auto _ : state) {
    s = f.session->Run(feeds, fetches, {}, &out);
    if (!s.ok()) break;
  }
  if (!CheckResult(state, s, out, 3.0f)) return;
  SetPerRun(state);
}

void BM_SessionRunCallable(benchmark::State& state) {
  SessionFixture f(static_cast<int>(state.range(0)));
  if (!f.status.ok()) {
    state.SkipWithError(f.status.ToString().c_str());
    return;
  }
  CallableOptions opts;
  opts.add_feed("x");
  opts.add_fetch("z");
  Session::CallableHandle handle = 0;
  absl::Status s = f.session->MakeCallable(opts, &handle);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  const std::vector<Tensor> feeds = {Tensor::Scalar<float>(2.0f)};
  std::vector<Tensor> out;
  s = f.session->RunCallable(handle, feeds, &out, nullptr);  // Warm-up.
  if (!CheckResult(state, s, out, 3.0f)) return;
  for (auto _ : state) {
    s = f.session->RunCallable(handle, feeds, &out, nullptr);
    if (!s.ok()) break;
  }
  if (!CheckResult(state, s, out, 3.0f)) return;
  f.session->ReleaseCallable(handle).IgnoreError();
  SetPerRun(state);
}

void BM_CApiSessionRun(benchmark::State& state) {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  const std::string bytes = AddOneGraph().SerializeAsString();
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
  SetPerRun(state);
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
  SetPerRun(state);
}
BENCHMARK(BM_TorchEagerAdd)->UseRealTime();
#endif

}  // namespace
}  // namespace stepflow::bench

