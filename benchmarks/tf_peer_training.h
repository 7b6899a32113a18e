// Training rows from oracle training cases (testing/tf_oracle/README.md),
// run by TensorFlow and by stepflow: the training half of
// tf_peer_benchmark's --cases=DIR (benchmarks/tf_peer_zoo.h registers
// them).
//
// A training case is a GraphDef with targets (the train op), fetches (the
// loss), init targets and several steps of the same feeds, run in no
// scratch directory (the zoo's TF1 training models, e.g. LeNet-5 with
// Momentum). RegisterTrainingRows registers
// BM_TfTraining/<name>/threads and BM_StepflowTraining/<name>/threads (1
// and 2 threads): one step (fetches and targets, the case's feeds) per
// iteration, after the init targets ran once. Before timing, each side's
// first kCheckedTrainingSteps steps must fetch the values of the case's
// expected/ result (TensorFlow's own run of the case, compared with
// testing/tf_oracle/compare.h's tolerance); the label says so. Later
// steps keep training the same variables (the timed steps are steps 3,
// 4, ...). A row whose side cannot run the case, or whose first steps
// differ, is skipped with the reason. `per_step`: seconds per step (wall).
//
// Ownership: `c` is borrowed and must outlive the benchmarks (the
// registry keeps a pointer). At most one session per side is open at a
// time. Thread-compatible: registration and the rows run on one thread.
#ifndef STEPFLOW_BENCHMARKS_TF_PEER_TRAINING_H_
#define STEPFLOW_BENCHMARKS_TF_PEER_TRAINING_H_

#include <string>

#include "testing/tf_oracle/oracle_case.h"

namespace stepflow::bench {

inline constexpr int kCheckedTrainingSteps = 2;

// Whether `spec` is a training case as above.
bool IsTrainingCase(const oracle::OracleCase& spec);

void RegisterTrainingRows(const std::string& name, const oracle::LoadedCase* c);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_TF_PEER_TRAINING_H_
