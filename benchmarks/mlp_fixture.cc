#include "benchmarks/mlp_fixture.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "benchmarks/state_util.h"
#include "runtime/framework/tensor.h"

namespace stepflow::bench {
namespace {

constexpr uint64_t kBatchSeed = 1;

}  // namespace

MlpOptions MlpOptionsFor(int batch) {
  MlpOptions o;
  o.batch = batch;
  o.layer_sizes = {784, 256, 256, 10};
  o.dtype = DT_FLOAT;
  return o;
}

bool SaneLoss(float loss) { return std::isfinite(loss) && loss > 0; }

MlpFixture::MlpFixture(int batch, int threads) {
  const MlpOptions o = MlpOptionsFor(batch);
  status = BuildMlpGraph(o, &graph);
  if (!status.ok()) return;
  data = MakeMlpBatch(o, kBatchSeed);
  feeds = {{graph.input, data.x}, {graph.labels, data.labels}};
  status = Create(graph.graph, threads);
  std::vector<Tensor> out;
  if (status.ok()) status = session->Run({}, {}, {graph.init}, &out);
}

absl::Status MlpFixture::Step(float* loss) {
  std::vector<Tensor> out;
  absl::Status s = session->Run(feeds, {graph.loss}, {graph.train}, &out);
  if (s.ok()) *loss = out[0].scalar<float>();
  return s;
}

std::vector<std::string> MlpFixture::ParamNames() const {
  std::vector<std::string> names;
  for (const MlpParam& p : graph.params) names.push_back(p.variable);
  return names;
}

void TimeStepflowMlpStep(benchmark::State& state) {
  MlpFixture f(static_cast<int>(state.range(0)),
               static_cast<int>(state.range(1)));
  float first = 0, loss = 0;
  absl::Status s = f.status;
  if (s.ok()) s = f.Step(&first);  // Warm-up.
  for (auto _ : state) {
    if (!s.ok()) break;
    s = f.Step(&loss);
  }
  if (!s.ok()) return SkipWithStatus(state, s);
  if (!SaneLoss(first) || !SaneLoss(loss) || !(loss < first)) {
    state.SkipWithError(
        absl::StrCat("loss not finite or not decreasing: ", first, " -> ", loss)
            .c_str());
    return;
  }
  state.counters["loss"] = loss;
  SetSecondsPerIteration(state, "per_step");
}

void MlpStepArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"batch", "threads"})
      ->ArgsProduct({{64, 512}, {1, 2}})
      ->UseRealTime();
}

}  // namespace stepflow::bench
