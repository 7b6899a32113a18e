#include "benchmarks/tf_peer_training.h"

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "benchmarks/c_session.h"
#include "benchmarks/state_util.h"
#include "benchmarks/stepflow_session.h"
#include "benchmarks/tf_peer_sessions.h"
#include "runtime/framework/tensor.h"
#include "testing/tf_oracle/compare.h"

namespace stepflow::bench {
namespace {

// One side's session on a training case at a thread count, initialized and
// past its checked steps. Kept between the calls google-benchmark makes
// for one row.
struct TrainingFixture {
  std::string key;
  absl::Status status;  // Import, init, a step, or the check failed.
  const oracle::LoadedCase* c = nullptr;
  std::vector<std::string> fetches, targets;
  StepflowSession stepflow;
  std::unique_ptr<CSession> tf;
  std::vector<Tensor> out;

  // One step; TensorFlow's fetched values are read only when `fetch`.
  absl::Status Step(bool fetch) {
    if (tf == nullptr) {
      return stepflow.session->Run(c->feeds, fetches, targets, &out);
    }
    absl::Status s = tf->RunPrepared();
    if (s.ok() && fetch) s = tf->Fetched(&out);
    return s;
  }
};

// Opens the session of one side, runs the init targets and prepares the
// step.
absl::Status Open(bool tensorflow, int threads, TrainingFixture* f) {
  const oracle::LoadedCase& c = *f->c;
  std::vector<Tensor> unused;
  absl::Status s;
  if (tensorflow) {
    s = NewTfSession(c.graph, threads, &f->tf);
    for (const std::string& t : c.spec.init_targets()) {
      if (s.ok()) s = f->tf->Run(c.feeds, {}, {t}, &unused);
    }
    if (s.ok()) s = f->tf->Prepare(c.feeds, f->fetches, f->targets);
    return s;
  }
  s = f->stepflow.Create(c.graph, threads);
  for (const std::string& t : c.spec.init_targets()) {
    if (s.ok()) s = f->stepflow.session->Run(c.feeds, {}, {t}, &unused);
  }
  return s;
}

// Runs the first kCheckedTrainingSteps steps, comparing each with the
// case's expected/ result.
absl::Status CheckFirstSteps(TrainingFixture* f) {
  oracle::CaseOutcome expected;
  absl::Status s = oracle::LoadOutcome(f->c->dir + "/expected", &expected);
  if (!s.ok()) return s;
  if (!expected.status.ok() ||
      static_cast<int>(expected.steps.size()) < kCheckedTrainingSteps) {
    return absl::NotFoundError("expected/ holds too few steps");
  }
  for (int step = 0; step < kCheckedTrainingSteps; ++step) {
    s = f->Step(/*fetch=*/true);
    if (!s.ok()) return s;
    const std::vector<Tensor>& want = expected.steps[step];
    if (want.size() != f->out.size()) {
      return absl::InternalError("fetched a different number of values");
    }
    for (size_t i = 0; i < want.size(); ++i) {
      s = oracle::CompareTensors(want[i], f->out[i], f->c->graph,
                                 absl::StrCat("step ", step, " ", f->fetches[i],
                                              ": differs from expected/"));
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// Opens (or reuses) the fixture of one side for (c, threads).
TrainingFixture* OpenTraining(bool tensorflow, const std::string& name,
                              const oracle::LoadedCase* c, int threads) {
  static auto* slots = new std::unique_ptr<TrainingFixture>[2];
  std::unique_ptr<TrainingFixture>& slot = slots[tensorflow ? 1 : 0];
  const std::string key = absl::StrCat(name, "|", threads);
  if (slot != nullptr && slot->key == key) return slot.get();
  slot.reset();  // Free the previous model first.
  auto f = std::make_unique<TrainingFixture>();
  f->key = key;
  f->c = c;
  f->fetches.assign(c->spec.fetches().begin(), c->spec.fetches().end());
  f->targets.assign(c->spec.targets().begin(), c->spec.targets().end());
  f->status = Open(tensorflow, threads, f.get());
  if (f->status.ok()) f->status = CheckFirstSteps(f.get());
  slot = std::move(f);
  return slot.get();
}

void RunTraining(benchmark::State& state, bool tensorflow,
                 const std::string& name, const oracle::LoadedCase* c) {
  const int threads = static_cast<int>(state.range(0));
  TrainingFixture* f = OpenTraining(tensorflow, name, c, threads);
  if (!f->status.ok()) return SkipWithStatus(state, f->status);
  absl::Status s;
  for (auto _ : state) {
    s = f->Step(/*fetch=*/false);
    if (!s.ok()) break;
  }
  if (!s.ok()) {
    f->status = s;
    return SkipWithStatus(state, s);
  }
  state.SetLabel(absl::StrCat("first ", kCheckedTrainingSteps,
                              " steps checked against expected/"));
  SetSecondsPerIteration(state, "per_step");
}

}  // namespace

bool IsTrainingCase(const oracle::OracleCase& spec) {
  return spec.saved_model().empty() && spec.targets_size() > 0 &&
         spec.fetches_size() > 0 && spec.steps() >= kCheckedTrainingSteps &&
         !spec.run_in_scratch_dir();
}

void RegisterTrainingRows(const std::string& name,
                          const oracle::LoadedCase* c) {
  for (bool tensorflow : {true, false}) {
    benchmark::RegisterBenchmark(
        absl::StrCat(tensorflow ? "BM_TfTraining/" : "BM_StepflowTraining/",
                     name)
            .c_str(),
        [tensorflow, name, c](benchmark::State& state) {
          RunTraining(state, tensorflow, name, c);
        })
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime();
  }
}

}  // namespace stepflow::bench
