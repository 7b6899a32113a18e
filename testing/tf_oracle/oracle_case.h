// Oracle cases and results on the C++ side (the format: README.md beside
// this file and oracle.proto; TensorFlow's side: tf_oracle.py).
//
// A case directory holds case.json (OracleCase), the GraphDef it names and
// the feed tensors; a result directory holds result.json (OracleResult) and
// one tensor file per fetched value. Tensor files are binary TensorProtos
// (".pb") or NumPy arrays (".npy").
//
// Errors: NotFound for a missing file, InvalidArgument naming the file for
// anything malformed. Thread-safety: plain functions over values.
#ifndef STEPFLOW_TESTING_TF_ORACLE_ORACLE_CASE_H_
#define STEPFLOW_TESTING_TF_ORACLE_ORACLE_CASE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"
#include "testing/tf_oracle/oracle.pb.h"

namespace stepflow {
namespace oracle {

struct LoadedCase {
  std::string dir;
  OracleCase spec;
  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
};

// What one system got for a case: the status (OK or the error), the phase
// that failed ("load", "import", "init", "step"), and the fetched values of
// each completed step, in the order of the case's fetches.
struct CaseOutcome {
  absl::Status status;
  std::string phase;
  std::vector<std::vector<Tensor>> steps;
};

// Reads `dir`/case.json, the graph and the feeds. A graph or feed that
// cannot be read fails here, before anything runs.
absl::Status LoadCase(const std::string& dir, LoadedCase* out);

// Writes a case directory: case.json from `spec` (its graph and feeds
// fields are set here), graph.pb and one TensorProto per feed.
absl::Status WriteCase(
    const std::string& dir, OracleCase spec, const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds);

// Reads `dir`/result.json and its tensors.
absl::Status LoadOutcome(const std::string& dir, CaseOutcome* out);

// Writes `outcome` to `dir` (created if missing) as `producer`'s result,
// naming each value after `fetches`.
absl::Status WriteOutcome(const CaseOutcome& outcome,
                          const std::vector<std::string>& fetches,
                          const std::string& producer, const std::string& dir);

// A tensor from a ".npy" or binary TensorProto ".pb" file.
absl::Status ReadTensorFile(const std::string& path, Tensor* out);

// Reads a whole file into `*out`.
absl::Status ReadFileToString(const std::string& path, std::string* out);

// absl's canonical code name ("INVALID_ARGUMENT") and back; unknown names
// give kUnknown.
std::string CodeName(absl::StatusCode code);
absl::StatusCode CodeFromName(const std::string& name);

// Every directory under `root` (itself included) that holds a case.json,
// sorted; an "expected" directory is never descended into.
absl::Status FindCaseDirs(const std::string& root,
                          std::vector<std::string>* out);

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_ORACLE_CASE_H_
