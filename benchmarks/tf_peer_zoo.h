// Inference rows from oracle cases (testing/tf_oracle/README.md), run by
// TensorFlow and by stepflow: tf_peer_benchmark's --cases=DIR. Training
// cases under the same root get training rows (tf_peer_training.h).
//
// RegisterZooBenchmarks(root) loads every case under `root` and, for each
// inference case (a GraphDef, fetches, no targets, one step), registers
// BM_TfInference/<case>/batch/threads and
// BM_StepflowInference/<case>/batch/threads (1 and 2 threads): one Run of
// the case's fetches with its feeds, after its init targets, if any, ran
// once. batch:1 is the case's own feeds; batch:32 (registered only when
// some feed's placeholder leaves the leading dimension unknown) cuts or
// repeats every such feed along that dimension to 32 rows. A case whose
// stored feeds have another leading dimension and none of them free gets
// that batch instead of 1. `<case>` is the case's name, less a trailing
// "/batch<N>" when the rows resize the batch (unless that name is taken).
//
// Before timing, each row's fetched values must match TensorFlow's 1-thread
// values for the same feeds (testing/tf_oracle/compare.h's tolerance) or,
// without TensorFlow, the case's expected/ result at its own batch; the
// label says which ("checked against ...", or "unchecked: <why>"). A case
// that stepflow cannot import or run gets one skipped row,
// BM_StepflowInference/<case>, with stepflow's error. Cases that are
// neither inference nor training cases or do not load, and cases with the same
// graph, fetches and init targets as an earlier one (another batch size of one
// model), are named on stderr and left out. `per_run`: seconds per Run (wall).
//
// Errors: NotFound when `root` holds no case.json; FindCaseDirs' errors;
// an error reading a case's graph. Registration runs stepflow on each case
// once (to know whether it runs), so call it after the process is set up
// for measuring (benchmarks/run_benchmarks.h's `setup` hook), once, before
// the benchmarks run. The cases stay loaded until the process exits; at
// most one model per side is open at a time.
#ifndef STEPFLOW_BENCHMARKS_TF_PEER_ZOO_H_
#define STEPFLOW_BENCHMARKS_TF_PEER_ZOO_H_

#include <string>

#include "absl/status/status.h"

namespace stepflow::bench {

absl::Status RegisterZooBenchmarks(const std::string& root);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_TF_PEER_ZOO_H_
