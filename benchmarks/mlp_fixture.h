// The MLP training step that the compute benchmarks run in stepflow and
// compare with their peers (libtorch in mlp_benchmark, TensorFlow in
// tf_peer_benchmark).
//
// The model is testing/mlp_graph.h's 784-256-256-10 float MLP (ReLU hidden
// layers, softmax cross-entropy, plain SGD) on its fixed synthetic batch
// (seed 1). A step feeds x and labels, fetches the loss and runs the
// target "train".
//
// MlpFixture builds the graph and the batch, creates them in a
// StepflowSession (benchmarks/stepflow_session.h) of `threads` inter-op
// threads and runs "init"; `status` says whether all of that worked.
// Thread-compatible. TimeStepflowMlpStep is the body of the
// BM_StepflowMlpStep/batch/threads rows (MlpStepArgs gives them their
// arguments).
#ifndef STEPFLOW_BENCHMARKS_MLP_FIXTURE_H_
#define STEPFLOW_BENCHMARKS_MLP_FIXTURE_H_

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "benchmarks/stepflow_session.h"
#include "runtime/common/session.h"
#include "testing/mlp_graph.h"

namespace stepflow::bench {

// The model at batch `batch`.
MlpOptions MlpOptionsFor(int batch);

// Whether a loss is finite and positive.
bool SaneLoss(float loss);

struct MlpFixture : StepflowSession {
  MlpFixture(int batch, int threads);

  // One training step; *loss: the loss before the update.
  absl::Status Step(float* loss);

  // The variables, in graph.params order (fetch them to read the weights).
  std::vector<std::string> ParamNames() const;

  MlpGraph graph;
  MlpBatch data;
  Session::FeedList feeds;  // x and labels.
  absl::Status status;      // Building, creating or "init" failed.
};

// Times MlpFixture::Step at batch state.range(0) and threads
// state.range(1), after one untimed step; the row is skipped on an error
// or unless the loss is sane and decreased. Counters: `loss` (the last
// step's), `per_step` (seconds per step).
void TimeStepflowMlpStep(benchmark::State& state);

// The arguments of every MLP-step row: batch 64 and 512 by 1 and 2
// threads, wall time.
void MlpStepArgs(benchmark::internal::Benchmark* b);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_MLP_FIXTURE_H_
