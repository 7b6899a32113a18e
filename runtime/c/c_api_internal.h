// The structs behind the C API's opaque handles, and helpers shared by the
// C API's translation units. Not part of the stable interface.
//
// Graph refcount (docs/semantics.md "C API and graph refcount"): a TF_Graph
// keeps the sessions registered with it in `sessions`, keyed by a per-graph
// session id (never by pointer value). It is freed by whichever of
// TF_DeleteGraph / TF_DeleteSession finds `delete_requested` set and
// `sessions` empty, exactly once.
//
// Locking: TF_Graph::mu guards the Graph, the session registry and each
// registered session's extension state. Extending a session holds the
// graph's mu across Session::Extend, which serialises extensions of all
// sessions of one graph (runs themselves happen outside the lock). A
// DirectSession never calls back into the TF_Graph, so there is no lock
// cycle.
#ifndef STEPFLOW_RUNTIME_C_C_API_INTERNAL_H_
#define STEPFLOW_RUNTIME_C_C_API_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"
#include "runtime/env/env.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"

struct TF_Status {
  absl::Status status;
  // NUL-terminated copy of status.message() for TF_Message.
  std::string message;
};

// Either backed by a stepflow Tensor (TF_AllocateTensor of a fixed-size
// type, fetched outputs: feeds share the buffer) or by caller memory with a
// deallocator (TF_NewTensor, and TF_AllocateTensor otherwise).
struct TF_Tensor {
  ~TF_Tensor();
  TF_DataType dtype = TF_FLOAT;
  std::vector<int64_t> dims;
  stepflow::Tensor backing;  // IsInitialized() iff backed.
  void* data = nullptr;
  size_t len = 0;
  void (*deallocator)(void* data, size_t len, void* arg) = nullptr;
  void* deallocator_arg = nullptr;
};

struct TF_ImportGraphDefOptions {
  std::string prefix;
};

struct TF_SessionOptions {
  std::string target;
  stepflow::ConfigProto config;
  // Not reachable from C: set by in-process C++ callers (the simulator, or
  // the setters of c_api_extension.h).
  // The Env sessions run in (borrowed; must outlive them); null means the
  // process Env (process_env.h).
  stepflow::Env* env = nullptr;
  // Passed through to SessionOptions::rendezvous_factory.
  stepflow::RendezvousFactory rendezvous_factory;
};

struct TF_DeviceList {
  std::vector<stepflow::DeviceAttributes> devices;
};

struct TF_Graph {
  TF_Graph();
  ~TF_Graph();

  // What the graph knows about one registered session.
  struct SessionEntry {
    // Node ids below this were sent to the session (Create/Extend).
    int last_num_graph_nodes = 0;
    // Set when an operation the session already has is changed; printed
    // (once) and cleared by the session's next extension.
    std::string mutation_warning;
  };

  absl::Mutex mu;
  stepflow::Graph graph ABSL_GUARDED_BY(mu);
  // Registered sessions by TF_Session::id (ordered; ids never reused).
  std::map<int64_t, SessionEntry> sessions ABSL_GUARDED_BY(mu);
  int64_t next_session_id ABSL_GUARDED_BY(mu) = 0;
  bool delete_requested ABSL_GUARDED_BY(mu) = false;
  // Set by the test-only early_graph_free planted bug
  // (runtime/framework/planted_bug.h) when it counted this graph as freed
  // early; the destructor then does not count it again.
  bool counted_freed_early = false;

  int num_sessions() const ABSL_SHARED_LOCKS_REQUIRED(mu) {
    return static_cast<int>(sessions.size());
  }
};

struct TF_Session {
  std::unique_ptr<stepflow::Session> session;
  // The graph this session was created on (kept alive by the registration).
  TF_Graph* graph = nullptr;
  // Key in graph->sessions.
  int64_t id = -1;
};

namespace stepflow {
namespace c_api {

// Sets `s` (if not null) to `status`.
void Set(TF_Status* s, absl::Status status);

// Replaces `buffer`'s bytes (freeing the old ones with its deallocator) by
// a malloc'd copy of `bytes`, freed by TF_DeleteBuffer.
void SetBufferBytes(const std::string& bytes, TF_Buffer* buffer);

// The Tensor a TF_Tensor feeds: shares a backed tensor's buffer, copies
// caller memory. InvalidArgument for types without a fixed element size or
// a byte size that does not match the shape.
absl::Status TensorFromC(const TF_Tensor& t, Tensor* out);
// A new TF_Tensor sharing `t`'s buffer. Unimplemented for types without a
// fixed element size (string, resource, variant).
absl::Status TensorToC(const Tensor& t, TF_Tensor** out);

// TF_Operation* <-> Node*: a TF_Operation is never defined; pointers are
// the graph's Node*s.
inline Node* ToNode(TF_Operation* op) { return reinterpret_cast<Node*>(op); }
inline const Node* ToNode(const TF_Operation* op) {
  return reinterpret_cast<const Node*>(op);
}
inline TF_Operation* ToOperation(Node* n) {
  return reinterpret_cast<TF_Operation*>(n);
}

// Live TF_Graph objects in this process (TF_NewGraph minus frees).
std::atomic<int64_t>& LiveGraphCount();

// Records that `node` of `graph` was changed by `what`: every registered
// session that already received the node gets a mutation warning.
void RecordMutation(TF_Graph* graph, const Node& node, const std::string& what)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu);

// Sends the nodes added to the session's graph since its last extension to
// the session (ValidateGraphHasNoCycle first: InvalidArgument on cycles).
// Prints and clears a pending mutation warning.
absl::Status ExtendSessionGraph(TF_Session* session);

}  // namespace c_api
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_C_C_API_INTERNAL_H_
