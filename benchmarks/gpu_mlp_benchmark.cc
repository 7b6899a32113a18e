// GPU benchmark: trains the MLP of testing/mlp_graph.h (784-256-256-10,
// batch 512, float32) through DirectSession on GPU:0 and reports the
// training step time, then the rate its matrix multiplies achieve
// (the MLP's 8 GEMMs' flops per step over the step time) next to the rate
// plain cuBLAS sgemm reaches on exactly those GEMMs (same shapes and
// transposes, back to back on one stream, timed with CUDA events) in the
// same process, and the matmul ceiling: plain cuBLAS sgemm of
// N x N x N (default 4096). Also times the same step on the CPU for
// reference.
//
// With --dump_dir=DIR it writes the batch (x.npy, labels.npy), the initial
// parameters (w1.npy, b1.npy, ...) and the losses of the first training
// steps from those values (losses.npy) for a peer to check itself against
// (benchmarks/gpu_mlp_torch.py).
//
// Usage: gpu_mlp_benchmark [--steps=N] [--cpu_steps=N] [--batch=N]
//                          [--sgemm_size=N] [--dump_dir=DIR]
// Prints "No CUDA GPU visible" and exits 0 where there is no GPU.
// A production main(): wall time comes from the real clock.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/npy.h"
#include "runtime/gpu/gpu_device.h"
#include "testing/mlp_graph.h"

namespace stepflow {
namespace {

struct Gemm {
  int m, n, k;
  bool ta, tb;
};

// The GEMMs one training step of the MLP runs (forward, weight gradients,
// input gradients of all but the first layer).
std::vector<Gemm> MlpGemms(int batch, const std::vector<int>& sizes) {
  std::vector<Gemm> g;
  for (size_t l = 1; l < sizes.size(); ++l) {
    g.push_back({batch, sizes[l], sizes[l - 1], false, false});
    g.push_back({sizes[l - 1], sizes[l], batch, true, false});
    if (l > 1) g.push_back({batch, sizes[l - 1], sizes[l], false, true});
  }
  return g;
}

double Flops(const std::vector<Gemm>& gemms) {
  double f = 0;
  for (const Gemm& g : gemms) f += 2.0 * g.m * g.n * g.k;
  return f;
}

double NowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#define CHECK_CUDA(x)                                              \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

// Seconds per repetition of `gemms` with plain cuBLAS sgemm.
double PlainCublasSeconds(const std::vector<Gemm>& gemms, int reps) {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) std::exit(1);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasSetStream(h, stream);
  std::vector<float*> a(gemms.size()), b(gemms.size()), c(gemms.size());
  for (size_t i = 0; i < gemms.size(); ++i) {
    const Gemm& g = gemms[i];
    CHECK_CUDA(
        cudaMalloc(reinterpret_cast<void**>(&a[i]), sizeof(float) * g.m * g.k));
    CHECK_CUDA(
        cudaMalloc(reinterpret_cast<void**>(&b[i]), sizeof(float) * g.k * g.n));
    CHECK_CUDA(
        cudaMalloc(reinterpret_cast<void**>(&c[i]), sizeof(float) * g.m * g.n));
    CHECK_CUDA(cudaMemset(a[i], 0, sizeof(float) * g.m * g.k));
    CHECK_CUDA(cudaMemset(b[i], 0, sizeof(float) * g.k * g.n));
  }
  const float one = 1, zero = 0;
  auto run_once = [&]() {
    for (size_t i = 0; i < gemms.size(); ++i) {
      const Gemm& g = gemms[i];
      // Row-major C = op(A) op(B), as the MatMul kernel issues it.
      cublasSgemm(h, g.tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                  g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, g.n, g.m, g.k, &one, b[i],
                  g.tb ? g.k : g.n, a[i], g.ta ? g.m : g.k, &zero, c[i], g.n);
    }
  };
  for (int i = 0; i < 10; ++i) run_once();
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < reps; ++i) run_once();
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  for (size_t i = 0; i < gemms.size(); ++i) {
    cudaFree(a[i]);
    cudaFree(b[i]);
    cudaFree(c[i]);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cublasDestroy(h);
  return ms / 1000.0 / reps;
}

// Seconds of one plain cuBLAS sgemm of n x n x n.
double SquareSgemmSeconds(int n, int reps) {
  return PlainCublasSeconds({{n, n, n, false, false}}, reps);
}

absl::Status WriteNpyFile(const std::string& path, const Tensor& t) {
  std::string bytes;
  absl::Status s = EncodeNpy(t, &bytes);
  if (!s.ok()) return s;
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::UnavailableError("cannot write " + path);
  return absl::OkStatus();
}

// Writes the batch, the initial parameters and the losses of the first
// `steps` GPU training steps from them into `dir` (see the file comment).
absl::Status DumpForPeer(Env* env, const MlpGraph& g, const MlpBatch& batch,
                         int steps, const std::string& dir) {
  SessionOptions opts;
  opts.env = env;
  (*opts.config.mutable_device_count())["GPU"] = 1;
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(opts, &session);
  if (s.ok()) s = session->Create(g.graph);
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({}, {}, {g.init}, &out);
  std::vector<std::string> names;
  for (const MlpParam& p : g.params) names.push_back(p.variable);
  std::vector<Tensor> params;
  if (s.ok()) s = session->Run({}, names, {}, &params);
  // Written before the steps: a fetched variable may share its buffer.
  for (size_t i = 0; s.ok() && i < params.size(); ++i) {
    s = WriteNpyFile(dir + "/" + names[i] + ".npy", params[i]);
  }
  if (s.ok()) s = WriteNpyFile(dir + "/x.npy", batch.x);
  if (s.ok()) s = WriteNpyFile(dir + "/labels.npy", batch.labels);
  Tensor losses(DT_FLOAT, TensorShape({steps}));
  const Session::FeedList feeds = {{g.input, batch.x},
                                   {g.labels, batch.labels}};
  for (int i = 0; s.ok() && i < steps; ++i) {
    s = session->Run(feeds, {g.loss}, {g.train}, &out);
    if (s.ok()) losses.flat<float>()(i) = out[0].scalar<float>();
  }
  if (s.ok()) s = WriteNpyFile(dir + "/losses.npy", losses);
  session->Close().IgnoreError();
  return s;
}

std::string StringFlag(int argc, char** argv, const char* name) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return argv[i] + prefix.size();
    }
  }
  return "";
}

// Seconds per training step on `gpus` GPUs (0: CPU only); loss after.
double SessionStepSeconds(Env* env, const MlpGraph& g, const MlpBatch& batch,
                          int gpus, int steps, float* loss) {
  SessionOptions opts;
  opts.env = env;
  (*opts.config.mutable_device_count())["GPU"] = gpus;
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(opts, &session);
  if (s.ok()) s = session->Create(g.graph);
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({}, {}, {g.init}, &out);
  const Session::FeedList feeds = {{g.input, batch.x},
                                   {g.labels, batch.labels}};
  for (int i = 0; s.ok() && i < 5; ++i) {
    s = session->Run(feeds, {g.loss}, {g.train}, &out);
  }
  const double t0 = NowSeconds();
  for (int i = 0; s.ok() && i < steps; ++i) {
    s = session->Run(feeds, {g.loss}, {g.train}, &out);
  }
  // Drain: a fetch of a variable waits for every queued update.
  if (s.ok()) s = session->Run({}, {g.params[0].variable}, {}, &out);
  const double t1 = NowSeconds();
  if (!s.ok()) {
    std::fprintf(stderr, "session run failed: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::vector<Tensor> l;
  if (session->Run(feeds, {g.loss}, {}, &l).ok()) *loss = l[0].scalar<float>();
  session->Close().IgnoreError();
  return (t1 - t0) / steps;
}

int IntFlag(int argc, char** argv, const char* name, int def) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return std::atoi(argv[i] + prefix.size());
    }
  }
  return def;
}

int Main(int argc, char** argv) {
  const int steps = IntFlag(argc, argv, "steps", 100);
  const int cpu_steps = IntFlag(argc, argv, "cpu_steps", 5);
  const int sgemm_size = IntFlag(argc, argv, "sgemm_size", 4096);
  const std::string dump_dir = StringFlag(argc, argv, "dump_dir");
  MlpOptions o;
  o.batch = IntFlag(argc, argv, "batch", 512);
  o.layer_sizes = {784, 256, 256, 10};
  const int gpus = VisibleGpuCount();
  if (gpus == 0) {
    std::printf(
        "No CUDA GPU visible (no driver or no device): benchmark skipped\n");
    return 0;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  MlpGraph g;
  absl::Status s = BuildMlpGraph(o, &g);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  MlpBatch batch = MakeMlpBatch(o, 1);
  std::unique_ptr<RealEnv> env = RealEnv::Create(8);
  const std::vector<Gemm> gemms = MlpGemms(o.batch, o.layer_sizes);
  const double flops = Flops(gemms);

  float gpu_loss = 0, cpu_loss = 0;
  const double gpu_step =
      SessionStepSeconds(env->env(), g, batch, 1, steps, &gpu_loss);
  const double plain = PlainCublasSeconds(gemms, 200);
  const double square = sgemm_size > 0 ? SquareSgemmSeconds(sgemm_size, 20) : 0;
  const double cpu_step =
      cpu_steps > 0
          ? SessionStepSeconds(env->env(), g, batch, 0, cpu_steps, &cpu_loss)
          : 0;
  std::printf("device: %s\n", prop.name);
  std::printf("MLP 784-256-256-10 batch %d float32, %d timed steps\n", o.batch,
              steps);
  std::printf("GPU training step: %.3f ms (loss after: %.6f)\n", gpu_step * 1e3,
              gpu_loss);
  if (cpu_steps > 0) {
    std::printf("CPU training step: %.3f ms (loss after: %.6f, %d steps)\n",
                cpu_step * 1e3, cpu_loss, cpu_steps);
  }
  std::printf("MLP GEMM flops per step: %.3f GFLOP (%zu GEMMs)\n", flops / 1e9,
              gemms.size());
  std::printf("matmul rate in the training step: %.1f GFLOP/s\n",
              flops / gpu_step / 1e9);
  std::printf(
      "plain cuBLAS sgemm, same GEMMs: %.1f GFLOP/s (%.3f ms per step's "
      "GEMMs)\n",
      flops / plain / 1e9, plain * 1e3);
  std::printf("ratio (training step / plain sgemm): %.3f\n", plain / gpu_step);
  if (sgemm_size > 0) {
    const double n = sgemm_size;
    std::printf(
        "plain cuBLAS sgemm %dx%dx%d (matmul ceiling): %.1f GFLOP/s (%.3f "
        "ms)\n",
        sgemm_size, sgemm_size, sgemm_size, 2 * n * n * n / square / 1e9,
        square * 1e3);
  }
  if (!dump_dir.empty()) {
    s = DumpForPeer(env->env(), g, batch, 5, dump_dir);
    if (!s.ok()) {
      std::fprintf(stderr, "dump for the peer failed: %s\n",
                   s.ToString().c_str());
      return 1;
    }
    std::printf("wrote the batch, initial parameters and 5 losses to %s\n",
                dump_dir.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) { return stepflow::Main(argc, argv); }
