// Runs an oracle case through stepflow the way tf_oracle.py runs it through
// TensorFlow: a fresh session on `env` with the case's GraphDef (import
// errors are phase "import"), the init targets once with every feed (phase
// "init"), then `steps` Runs of fetches + targets with the feeds (phase
// "step"). The outcome holds the first error and the steps before it.
// A case with run_in_scratch_dir runs with the process's working directory
// set to a fresh temporary directory (removed afterwards). A SavedModel case
// is loaded with LoadSavedModel (runtime/saved_model/loader.h; errors are
// phase "import") and its feeds and fetches name the signature's keys.
//
// Thread-safety: each call uses its own session, but a scratch-dir case
// changes the process's working directory, so callers run cases one at a
// time. `env` is borrowed and must outlive the call.
#ifndef STEPFLOW_TESTING_TF_ORACLE_STEPFLOW_RUNNER_H_
#define STEPFLOW_TESTING_TF_ORACLE_STEPFLOW_RUNNER_H_

#include "runtime/env/env.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow {
namespace oracle {

CaseOutcome RunCaseInStepflow(const LoadedCase& c, Env* env);

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_STEPFLOW_RUNNER_H_
