// CSession: a session of one C API implementation (benchmarks/c_api_table.h)
// over one GraphDef, driven with the same calls whichever implementation
// it is, stepflow's or TensorFlow's.
//
// Create imports the GraphDef (TF_GraphImportGraphDef, no prefix) and makes
// a session with the given serialized ConfigProto (TF_SetConfig). A step
// is given by names, "op" or "op:k" for feeds and fetches and "op" for
// targets; Prepare resolves them and copies the feeds into C API tensors
// once, so that RunPrepared times TF_SessionRun alone. Feeds and fetches
// are numeric or bool tensors (Unimplemented otherwise).
//
// Errors: the implementation's TF_Code as the absl::StatusCode, the message
// prefixed with CApi::name and the phase ("import", "session", "run");
// NotFound for a name the graph does not have.
//
// Ownership: the CApi is borrowed and must outlive the session; the session
// owns its graph, its feed tensors and the last step's fetched tensors.
// Thread-compatible: one thread at a time.
#ifndef STEPFLOW_BENCHMARKS_C_SESSION_H_
#define STEPFLOW_BENCHMARKS_C_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "benchmarks/c_api_table.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/framework/tensor.h"

namespace stepflow::bench {

// The ConfigProto both systems get (stepflow's proto/config.proto uses
// TensorFlow's field numbers), serialized: `threads` intra- and inter-op
// threads, pools per session, grappler untouched.
std::string SessionConfig(int threads);

class CSession {
 public:
  // The same type as Session::FeedList.
  using FeedList = std::vector<std::pair<std::string, Tensor>>;

  // `config`: a serialized ConfigProto. `customize`, if set, edits the
  // options before the session is made (stepflow's: the Env to run in).
  static absl::Status Create(
      const CApi& api, const GraphDef& graph, const std::string& config,
      const std::function<void(TF_SessionOptions*)>& customize,
      std::unique_ptr<CSession>* out);

  CSession(const CSession&) = delete;
  CSession& operator=(const CSession&) = delete;
  ~CSession();

  // Resolves the names, and converts the feeds, of the step RunPrepared
  // repeats.
  absl::Status Prepare(const FeedList& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets);

  // One TF_SessionRun of the prepared step. The fetched values stay until
  // the next call (Fetched reads them).
  absl::Status RunPrepared();

  // Copies of the last prepared step's fetched values.
  absl::Status Fetched(std::vector<Tensor>* out) const;

  // Prepare + RunPrepared + Fetched: one step by names.
  absl::Status Run(const FeedList& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* out);

 private:
  explicit CSession(const CApi& api);

  absl::Status Check(const char* what) const;
  absl::Status Endpoint(const std::string& name, TF_Output* out);
  void DeleteFetched();
  void ClearPrepared();

  const CApi& api_;
  TF_Status* status_;
  TF_Graph* graph_;
  TF_Session* session_ = nullptr;
  std::vector<TF_Output> feeds_;
  std::vector<TF_Tensor*> feed_values_;
  std::vector<TF_Output> fetches_;
  std::vector<TF_Tensor*> fetched_;
  std::vector<TF_Operation*> targets_;
};

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_C_SESSION_H_
