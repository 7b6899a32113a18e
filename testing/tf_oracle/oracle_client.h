// OracleClient: real TensorFlow in a child process, for tests that need
// many cases judged one after another (the random-graph differential and
// its shrinking). It starts `$STEPFLOW_TF_PYTHON tf_oracle.py serve` once
// and sends it one case per request, so TensorFlow is imported once.
//
// TensorFlowStatus() says whether TensorFlow can be used at all: OK, or
// FailedPrecondition naming tools/install_tf.sh when STEPFLOW_TF_PYTHON is
// unset or the interpreter cannot start; tests skip on it unless
// STEPFLOW_REQUIRE_TF=1 (RequireTensorFlow()).
//
// Errors from Run: Unavailable when the child died or answered garbage
// (the client is unusable afterwards). Thread-compatible: one caller at a
// time.
#ifndef STEPFLOW_TESTING_TF_ORACLE_ORACLE_CLIENT_H_
#define STEPFLOW_TESTING_TF_ORACLE_ORACLE_CLIENT_H_

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"

namespace stepflow {
namespace oracle {

// $STEPFLOW_TF_PYTHON, or FailedPrecondition naming the install command.
absl::Status TensorFlowPython(std::string* python);
// True when STEPFLOW_TF_PYTHON must be there (CI): STEPFLOW_REQUIRE_TF=1.
bool RequireTensorFlow();

// The path of tf_oracle.py in a test's runfiles (or next to the binary
// under `bazel run`).
std::string OracleScriptPath();

class OracleClient {
 public:
  // Starts the child. `script` is tf_oracle.py's path.
  static absl::Status Start(const std::string& python,
                            const std::string& script,
                            std::unique_ptr<OracleClient>* out);
  ~OracleClient();
  OracleClient(const OracleClient&) = delete;
  OracleClient& operator=(const OracleClient&) = delete;

  // Runs the case in `case_dir` with TensorFlow into `result_dir`.
  absl::Status Run(const std::string& case_dir, const std::string& result_dir);

 private:
  OracleClient(pid_t pid, FILE* to_child, FILE* from_child)
      : pid_(pid), to_child_(to_child), from_child_(from_child) {}

  pid_t pid_;
  FILE* to_child_;
  FILE* from_child_;
};

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_ORACLE_CLIENT_H_
