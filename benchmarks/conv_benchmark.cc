// Convolution kernels against TensorFlow: one Session::Run of a graph
// holding one convolution of float Consts (benchmarks/conv_shapes.h),
// targeting its output (nothing fed or fetched, so no copies).
//
//   bazel run -c opt //benchmarks:conv_benchmark
//   $STEPFLOW_TF_PYTHON benchmarks/conv_tf_peer.py OUT.json   (the peer)
//
//  * BM_StepflowConv/<shape>/threads:<t>: a DirectSession on a RealEnv with
//    `t` scheduler threads (the kernels split the work into one piece per
//    thread; OpenBLAS runs one thread per piece).
//  * The TensorFlow peer (conv_tf_peer.py) times the same graphs in a
//    tf.compat.v1.Session with intra_op_parallelism_threads = t and
//    inter_op_parallelism_threads = 1, in TensorFlow's default
//    configuration (oneDNN kernels on x86), writing google-benchmark JSON
//    with rows BM_TensorFlowConv/<shape>/threads:<t>. run_all.sh runs both.
//  * With --define=with_onednn=1 (Debian libdnnl-dev),
//    BM_OneDnnConv/<shape>/threads:<t>: the same convolution run by oneDNN
//    directly (benchmarks/conv_onednn.h: NHWC activations, the filter
//    reordered once into oneDNN's preferred layout, `t` OpenMP threads),
//    interleaved with stepflow's rows: the measurement behind the choice
//    of convolution library (BENCHMARKS.md). The label names oneDNN's
//    implementation.
// Every row reports `gflops` (2 x multiply-adds of the convolution per
// call).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "benchmarks/conv_shapes.h"
#if STEPFLOW_BENCH_WITH_ONEDNN
#include "benchmarks/conv_onednn.h"
#endif
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow::bench {
namespace {

int64_t OutSize(const ConvShape& c, int64_t in) {
  return (in + c.stride - 1) / c.stride;  // SAME
}

void AddConst(GraphDef* g, const std::string& name, const TensorShape& shape,
              uint32_t seed) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.flat<float>().data();
  uint32_t x = seed;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<float>((x >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorToProto(t, (*n->mutable_attr())["value"].mutable_tensor());
}

void AddSizes(GraphDef* g, const std::string& name,
              const std::vector<int32_t>& dims) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) t.flat<int32_t>()(i) = dims[i];
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  (*n->mutable_attr())["dtype"].set_type(DT_INT32);
  TensorToProto(t, (*n->mutable_attr())["value"].mutable_tensor());
}

GraphDef ConvGraph(const ConvShape& c) {
  GraphDef g;
  const bool depthwise = std::string(c.op) == "DepthwiseConv2dNative";
  const int64_t oh = OutSize(c, c.height), ow = OutSize(c, c.width);
  const int64_t out_depth = depthwise ? c.in_depth * c.out_depth : c.out_depth;
  const TensorShape in({c.batch, c.height, c.width, c.in_depth});
  const TensorShape filter({c.filter, c.filter, c.in_depth, c.out_depth});
  const TensorShape out({c.batch, oh, ow, out_depth});
  NodeDef* n = nullptr;
  const std::string op = c.op;
  if (op == "Conv2DBackpropInput") {
    AddSizes(&g, "sizes",
             {static_cast<int32_t>(c.batch), static_cast<int32_t>(c.height),
              static_cast<int32_t>(c.width), static_cast<int32_t>(c.in_depth)});
    AddConst(&g, "filter", filter, 2);
    AddConst(&g, "dy", out, 3);
    n = g.add_node();
    n->add_input("sizes");
    n->add_input("filter");
    n->add_input("dy");
  } else if (op == "Conv2DBackpropFilter") {
    AddConst(&g, "input", in, 1);
    AddSizes(
        &g, "sizes",
        {static_cast<int32_t>(c.filter), static_cast<int32_t>(c.filter),
         static_cast<int32_t>(c.in_depth), static_cast<int32_t>(c.out_depth)});
    AddConst(&g, "dy", out, 3);
    n = g.add_node();
    n->add_input("input");
    n->add_input("sizes");
    n->add_input("dy");
  } else {
    AddConst(&g, "input", in, 1);
    AddConst(&g, "filter", filter, 2);
    n = g.add_node();
    n->add_input("input");
    n->add_input("filter");
  }
  n->set_name("conv");
  n->set_op(op);
  auto& attr = *n->mutable_attr();
  attr["T"].set_type(DT_FLOAT);
  for (int64_t s : {int64_t{1}, c.stride, c.stride, int64_t{1}}) {
    attr["strides"].mutable_list()->add_i(s);
  }
  attr["padding"].set_s("SAME");
  return g;
}

// Output positions x filter taps x input channels x out_depth (for the
// depthwise op, out_depth is the multiplier: the same product).
double MultiplyAdds(const ConvShape& c) {
  const double positions =
      static_cast<double>(c.batch) * OutSize(c, c.height) * OutSize(c, c.width);
  return positions * c.filter * c.filter * c.in_depth * c.out_depth;
}

void SetGflops(benchmark::State& state, const ConvShape& c);

void BM_StepflowConv(benchmark::State& state) {
  const ConvShape& c = kConvShapes[state.range(0)];
  const int threads = static_cast<int>(state.range(1));
  state.SetLabel(c.name);
  std::unique_ptr<RealEnv> env = RealEnv::Create(threads);
  SessionOptions options;
  options.env = env->env();
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(options, &session);
  if (s.ok()) s = session->Create(ConvGraph(c));
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({}, {}, {"conv"}, &out);  // Warm-up.
  for (auto _ : state) {
    if (!s.ok()) break;
    s = session->Run({}, {}, {"conv"}, &out);
  }
  if (session != nullptr) session->Close().IgnoreError();
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  SetGflops(state, c);
}

void SetGflops(benchmark::State& state, const ConvShape& c) {
  state.counters["gflops"] =
      benchmark::Counter(2.0 * MultiplyAdds(c) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

#if STEPFLOW_BENCH_WITH_ONEDNN
void BM_OneDnnConv(benchmark::State& state) {
  const ConvShape& c = kConvShapes[state.range(0)];
  SetOneDnnThreads(static_cast<int>(state.range(1)));
  std::unique_ptr<OneDnnConv> conv;
  absl::Status s = OneDnnConv::Create(c, &conv);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  state.SetLabel(absl::StrCat(c.name, " (", conv->ImplInfo(), ")"));
  conv->Run();  // Warm-up.
  for (auto _ : state) conv->Run();
  SetGflops(state, c);
}
#endif

void ConvArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"shape", "threads"});
  for (int i = 0; i < kNumConvShapes; ++i) {
    for (int threads : {1, 2}) b->Args({i, threads});
  }
}
BENCHMARK(BM_StepflowConv)
    ->Apply(ConvArgs)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
#if STEPFLOW_BENCH_WITH_ONEDNN
BENCHMARK(BM_OneDnnConv)
    ->Apply(ConvArgs)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace stepflow::bench
