// Compute-bound benchmarks: one training step of a float MLP, and one
// 1024x1024x1024 float matrix multiply, each next to a peer.
//
//   bazel run -c opt //benchmarks:mlp_benchmark
//   bazel run -c opt --define=with_torch=1 //benchmarks:mlp_benchmark
//       (+ libtorch)
//
// The model is testing/mlp_graph.h's 784-256-256-10 float MLP (ReLU hidden
// layers, softmax cross-entropy, plain SGD at learning rate 0.1) on its
// fixed synthetic batch. Timings are wall time (`per_step`: seconds per
// step, printed with an SI prefix, e.g. "1.2m").
//
//  * BM_StepflowMlpStep/batch/threads: DirectSession::Run feeding x and
//    labels, fetching the loss and running the target "train" (forward,
//    tf.gradients' backward, one ApplyGradientDescent per variable) on a
//    RealEnv with `threads` scheduler threads. "init" and one step run
//    before timing. The threads run independent kernels side by side, and
//    MatMul cuts a large product into one block per thread (gemm.h); each
//    block is a one-thread OpenBLAS call.
//  * BM_TorchMlpStep/batch/threads (--define=with_torch=1): the same model
//    in libtorch (ATen eager ops + autograd): addmm, relu, log_softmax
//    cross-entropy with the one-hot labels, backward(), then p -= lr * grad
//    and zeroed grads under NoGradGuard. at::set_num_threads(threads), and
//    the same OpenBLAS thread count when libtorch's BLAS is OpenBLAS (the
//    context's "libtorch_blas" says which). Run it with
//    OMP_WAIT_POLICY=PASSIVE (run_all.sh does; the context shows it):
//    spinning OpenMP workers starve OpenBLAS's threads on few cores. It
//    starts from the weights the stepflow graph's "init" produces; before
//    timing, the losses of its first two steps must match the stepflow
//    graph's (relative 1e-3), so both sides compute the same step.
//  * BM_StepflowMatMul/1024: Run of a graph c = MatMul(a, b) with a and b
//    1024x1024 float Consts, targeting c (nothing fed or fetched, so no
//    copies): the MatMul kernel the session runs, plus one Run's overhead
//    (microseconds against tens of milliseconds). 1 inter-op thread.
//  * BM_BlasSgemm/1024: cblas_sgemm on the same
//    row-major operands, OpenBLAS restricted to one thread like our kernel.
//    The OpenBLAS build (openblas_get_config()) goes into the benchmark
//    context as "blas", its kernel set (openblas_get_corename()) into the
//    row's label.
// Both MatMul rows report `gflops` (2 * n^3 flops per call, GFLOP/s) and
// check sampled entries of the product against a double-precision dot
// product.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "benchmarks/mlp_fixture.h"
#include "benchmarks/state_util.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "testing/mlp_graph.h"

#ifdef STEPFLOW_BENCH_WITH_TORCH
#include <dlfcn.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

#include <cblas.h>
// OpenBLAS's own entry points (not in every cblas.h). The MatMul kernels
// use the same OpenBLAS (runtime/kernels/gemm.h), so this binary always
// links it.
extern "C" {
char* openblas_get_config(void);
char* openblas_get_corename(void);
void openblas_set_num_threads(int num_threads);
}

namespace stepflow::bench {
namespace {

void SetGflops(benchmark::State& state, int64_t n) {
  state.counters["gflops"] = benchmark::Counter(
      2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_StepflowMlpStep(benchmark::State& state) {
  openblas_set_num_threads(1);  // As the kernels do; a peer may change it.
  TimeStepflowMlpStep(state);
}

BENCHMARK(BM_StepflowMlpStep)->Apply(MlpStepArgs);

#ifdef STEPFLOW_BENCH_WITH_TORCH
// libtorch's matrix products go to the BLAS behind Debian's libblas.so.3
// alternative. When that is OpenBLAS, it is the very library the MatMul
// kernels use, and its thread count is its own (not at::set_num_threads'):
// it is set too here, and set back to one by every stepflow benchmark.
void SetTorchThreads(int threads) {
  at::set_num_threads(threads);
  openblas_set_num_threads(threads);
}

// The library that libtorch's libblas.so.3 takes sgemm_ from (OpenBLAS's
// libopenblas.so.0, or another BLAS the alternatives select).
std::string TorchBlas() {
  void* blas = dlopen("libblas.so.3", RTLD_LAZY | RTLD_NOLOAD);
  void* sgemm = blas != nullptr ? dlsym(blas, "sgemm_") : nullptr;
  Dl_info info;
  if (sgemm == nullptr || dladdr(sgemm, &info) == 0) return "unknown";
  return info.dli_fname;
}

// libtorch's OpenMP workers spin while idle unless OMP_WAIT_POLICY=PASSIVE
// (read when OpenMP loads, before main), which matters on few cores.
std::string OmpWaitPolicy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy != nullptr ? policy : "unset (spin, then sleep)";
}

[[maybe_unused]] const bool kTorchContext =
    (benchmark::AddCustomContext("libtorch_blas", TorchBlas()),
     benchmark::AddCustomContext("omp_wait_policy", OmpWaitPolicy()), true);

at::Tensor ToTorch(const Tensor& t) {
  std::vector<int64_t> dims;
  for (int d = 0; d < t.dims(); ++d) dims.push_back(t.dim_size(d));
  // from_blob borrows; clone() gives the torch tensor its own storage.
  return at::from_blob(const_cast<float*>(t.flat<float>().data()), dims,
                       at::kFloat)
      .clone();
}

struct TorchMlp {
  std::vector<at::Tensor> weights, biases;
  at::Tensor x, labels;
  double learning_rate = 0;

  // Forward, backward and the SGD update; returns the loss before it.
  at::Tensor Step() {
    at::Tensor h = x;
    for (size_t l = 0; l < weights.size(); ++l) {
      h = at::addmm(biases[l], h, weights[l]);
      if (l + 1 < weights.size()) h = at::relu(h);
    }
    at::Tensor loss = -(labels * at::log_softmax(h, 1)).sum(1).mean();
    loss.backward();
    at::NoGradGuard no_grad;
    for (std::vector<at::Tensor>* params : {&weights, &biases}) {
      for (at::Tensor& p : *params) {
        p.sub_(p.grad(), learning_rate);
        p.mutable_grad().zero_();
      }
    }
    return loss.detach();
  }
};

void BM_TorchMlpStep(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  // The stepflow graph gives the initial weights and the reference losses.
  MlpFixture f(batch, 1);
  std::vector<Tensor> params;
  float ref_loss[2] = {0, 0};
  absl::Status s = f.status;
  std::vector<std::string> names;
  for (const MlpParam& p : f.graph.params) names.push_back(p.variable);
  if (s.ok()) s = f.session->Run({}, names, {}, &params);
  TorchMlp m;
  m.learning_rate = MlpOptionsFor(batch).learning_rate;
  // Copied before the reference steps: a fetched variable shares the
  // variable's buffer, which the updates change in place.
  for (size_t i = 0; s.ok() && i < params.size(); ++i) {
    at::Tensor t = ToTorch(params[i]).requires_grad_(true);
    (i % 2 == 0 ? m.weights : m.biases).push_back(t);
  }
  if (s.ok()) s = f.Step(&ref_loss[0]);
  if (s.ok()) s = f.Step(&ref_loss[1]);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  SetTorchThreads(threads);
  m.x = ToTorch(f.data.x);
  m.labels = ToTorch(f.data.labels);
  for (float ref : ref_loss) {
    const float got = m.Step().item<float>();
    if (!SaneLoss(got) || std::fabs(got - ref) > 1e-3 * std::fabs(ref)) {
      state.SkipWithError(
          absl::StrCat("libtorch loss ", got, " != stepflow loss ", ref)
              .c_str());
      return;
    }
  }
  at::Tensor loss;
  for (auto _ : state) {
    loss = m.Step();
  }
  const float last = loss.item<float>();
  if (!SaneLoss(last) || !(last < ref_loss[0])) {
    state.SkipWithError("libtorch loss not finite or not decreasing");
    return;
  }
  state.counters["loss"] = last;
  SetSecondsPerIteration(state, "per_step");
}

BENCHMARK(BM_TorchMlpStep)->Apply(MlpStepArgs);
#endif  // STEPFLOW_BENCH_WITH_TORCH

// Deterministic operands in [-0.5, 0.5).
float OperandValue(int which, int64_t i) {
  return static_cast<float>((i * (which == 0 ? 7919 : 104729)) % 1009) /
             1009.0f -
         0.5f;
}

std::vector<float> Operand(int which, int64_t n) {
  std::vector<float> v(n * n);
  for (int64_t i = 0; i < n * n; ++i) v[i] = OperandValue(which, i);
  return v;
}

// Checks sampled entries of the row-major product c = a * b.
bool ProductOk(const float* c, int64_t n) {
  for (int64_t s = 0; s < 64; ++s) {
    const int64_t i = (s * 131) % n, j = (s * 617 + 5) % n;
    double want = 0;
    for (int64_t k = 0; k < n; ++k) {
      want += static_cast<double>(OperandValue(0, i * n + k)) *
              OperandValue(1, k * n + j);
    }
    if (std::fabs(c[i * n + j] - want) > 1e-3 * (1 + std::fabs(want))) {
      return false;
    }
  }
  return true;
}

GraphDef MatMulGraph(int64_t n) {
  GraphDef g;
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  for (int which = 0; which < 2; ++which) {
    Tensor t(DT_FLOAT, TensorShape({n, n}));
    const std::vector<float> v = Operand(which, n);
    std::copy(v.begin(), v.end(), t.flat<float>().data());
    NodeDef* c = g.add_node();
    c->set_name(which == 0 ? "a" : "b");
    c->set_op("Const");
    (*c->mutable_attr())["dtype"] = float_type;
    TensorToProto(t, (*c->mutable_attr())["value"].mutable_tensor());
  }
  NodeDef* mm = g.add_node();
  mm->set_name("c");
  mm->set_op("MatMul");
  mm->add_input("a");
  mm->add_input("b");
  (*mm->mutable_attr())["T"] = float_type;
  (*mm->mutable_attr())["transpose_a"].set_b(false);
  (*mm->mutable_attr())["transpose_b"].set_b(false);
  return g;
}

void BM_StepflowMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  openblas_set_num_threads(1);  // As the kernels do; a peer may change it.
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  SessionOptions options;
  options.env = env->env();
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(options, &session);
  if (s.ok()) s = session->Create(MatMulGraph(n));
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({}, {}, {"c"}, &out);  // Warm-up.
  for (auto _ : state) {
    if (!s.ok()) break;
    s = session->Run({}, {}, {"c"}, &out);
  }
  if (s.ok()) s = session->Run({}, {"c"}, {}, &out);
  if (session != nullptr) session->Close().IgnoreError();
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  if (out.size() != 1 || out[0].NumElements() != n * n ||
      !ProductOk(out[0].flat<float>().data(), n)) {
    state.SkipWithError("wrong product");
    return;
  }
  SetGflops(state, n);
}
BENCHMARK(BM_StepflowMatMul)->Arg(1024)->UseRealTime();

// The context is printed before any benchmark runs: record it at startup.
[[maybe_unused]] const bool kBlasContext =
    (benchmark::AddCustomContext("blas", openblas_get_config()), true);

void BM_BlasSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  openblas_set_num_threads(1);
  state.SetLabel(absl::StrCat("OpenBLAS ", openblas_get_corename()));
  const std::vector<float> a = Operand(0, n), b = Operand(1, n);
  std::vector<float> c(static_cast<size_t>(n) * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::ClobberMemory();
  }
  if (!ProductOk(c.data(), n)) {
    state.SkipWithError("wrong product");
    return;
  }
  SetGflops(state, n);
}
BENCHMARK(BM_BlasSgemm)->Arg(1024)->UseRealTime();

}  // namespace
}  // namespace stepflow::bench
