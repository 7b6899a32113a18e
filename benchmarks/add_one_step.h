// The one-op step of the Session::Run latency benchmarks.
//
// AddOneGraph(add_op): x = Placeholder(float, scalar), one = Const(1.0f),
// z = add_op(x, one), with add_op "Add" or "AddV2" (what `z = x + 1` gives
// in TensorFlow 2). The step feeds x = 2 and fetches z; CheckAddOne says
// whether what it fetched is the one float 3 (Internal otherwise).
//
// TimeAddOneSessionRun is the body of a row timing that step through
// stepflow's C++ Session::Run: a StepflowSession
// (benchmarks/stepflow_session.h) of state.range(0) inter-op threads, the
// feeds and fetch names built once, one untimed Run, then one Run per
// iteration. The row is skipped on an error or a wrong value; counter
// `per_run`: seconds per Run.
//
// No state of its own; the row runs on the thread google-benchmark gives.
#ifndef STEPFLOW_BENCHMARKS_ADD_ONE_STEP_H_
#define STEPFLOW_BENCHMARKS_ADD_ONE_STEP_H_

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow::bench {

GraphDef AddOneGraph(const std::string& add_op);

absl::Status CheckAddOne(const std::vector<Tensor>& out);

void TimeAddOneSessionRun(benchmark::State& state, const std::string& add_op);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_ADD_ONE_STEP_H_
