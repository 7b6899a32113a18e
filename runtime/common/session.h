// Session: runs steps of a graph (TensorFlow's tensorflow::Session).
//
// Error contract (see docs/semantics.md "Session API"): once Close() has been
// called every method except Close/ListDevices returns Cancelled("Session has
// been closed."); Run before any graph is InvalidArgument; feeds/fetches/
// targets naming missing nodes are NotFound; malformed requests are
// InvalidArgument naming the endpoint.
//
// Thread-safety: every method may be called concurrently from many threads;
// concurrent Runs execute concurrently.
#ifndef STEPFLOW_RUNTIME_COMMON_SESSION_H_
#define STEPFLOW_RUNTIME_COMMON_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "runtime/common/session_options.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

class Session {
 public:
  using FeedList = std::vector<std::pair<std::string, Tensor>>;
  using CallableHandle = int64_t;

  virtual ~Session() = default;

  // Adds the first graph. An empty GraphDef is OK and leaves the session
  // without a graph; a second non-empty Create is AlreadyExists.
  virtual absl::Status Create(const GraphDef& graph) = 0;
  // As above, but may consume `graph` instead of copying it (a large graph
  // is then never held twice); `graph` is left valid but unspecified.
  virtual absl::Status Create(GraphDef&& graph) {
    return Create(static_cast<const GraphDef&>(graph));
  }
  // Adds nodes to the graph (like Create when there is none yet). Reusing a
  // node name or a different producer version is InvalidArgument.
  virtual absl::Status Extend(const GraphDef& graph) = 0;

  // Runs one step: feeds `inputs`, computes `output_names` (returned in that
  // order in `outputs`; "n" means "n:0"; duplicates each get the value) and
  // runs `target_names` for their side effects.
  virtual absl::Status Run(const RunOptions& run_options,
                           const FeedList& inputs,
                           const std::vector<std::string>& output_names,
                           const std::vector<std::string>& target_names,
                           std::vector<Tensor>* outputs,
                           RunMetadata* run_metadata) = 0;
  absl::Status Run(const FeedList& inputs,
                   const std::vector<std::string>& output_names,
                   const std::vector<std::string>& target_names,
                   std::vector<Tensor>* outputs) {
    return Run(RunOptions(), inputs, output_names, target_names, outputs,
               nullptr);
  }

  // Partial runs: declare every feed/fetch/target up front, then feed and
  // fetch incrementally.
  virtual absl::Status PRunSetup(const std::vector<std::string>& input_names,
                                 const std::vector<std::string>& output_names,
                                 const std::vector<std::string>& target_names,
                                 std::string* handle) = 0;
  virtual absl::Status PRun(const std::string& handle, const FeedList& inputs,
                            const std::vector<std::string>& output_names,
                            std::vector<Tensor>* outputs) = 0;

  // Callables: a prepared (feeds, fetches, targets) signature behind an
  // integer handle.
  virtual absl::Status MakeCallable(const CallableOptions& options,
                                    CallableHandle* handle) = 0;
  virtual absl::Status RunCallable(CallableHandle handle,
                                   const std::vector<Tensor>& feed_tensors,
                                   std::vector<Tensor>* fetch_tensors,
                                   RunMetadata* run_metadata) = 0;
  virtual absl::Status ReleaseCallable(CallableHandle handle) = 0;

  virtual absl::Status ListDevices(std::vector<DeviceAttributes>* devices) = 0;

  // Cancels running steps (they return Cancelled) and rejects later calls.
  // Idempotent.
  virtual absl::Status Close() = 0;

  // Drops the resources (variables...) in `containers` on every device; an
  // empty list means the default container.
  virtual absl::Status Reset(const std::vector<std::string>& containers) = 0;
};

// Creates a session for `options.target` through the SessionFactory
// registry. `options.env` must be set.
absl::Status NewSession(const SessionOptions& options,
                        std::unique_ptr<Session>* session);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_SESSION_H_
