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
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message_lite.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"
#include "runtime/env/env.h"
#include "runtime/framework/tensor.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/shape_refiner.h"

struct TF_Status {
  absl::Status status;
  // NUL-terminated copy of status.message() for TF_Message.
  std::string message;
};

namespace stepflow {
namespace c_api {

// The bytes behind one or more TF_Tensors (TF_TensorBitcastFrom shares
// them). Exactly one source: a runtime Tensor (`backing`), bytes the C API
// allocated (`owned`, freed with free()), or caller memory released through
// `deallocator`. `data` points at the first byte in every case.
struct TensorStorage {
  TensorStorage() = default;
  TensorStorage(const TensorStorage&) = delete;
  TensorStorage& operator=(const TensorStorage&) = delete;
  ~TensorStorage();

  Tensor backing;
  void* owned = nullptr;
  void* data = nullptr;
  size_t len = 0;
  void (*deallocator)(void* data, size_t len, void* arg) = nullptr;
  void* deallocator_arg = nullptr;
  // TF_TString elements at `data` whose heap bytes this storage frees
  // (string tensors the C API allocated or fetched).
  size_t owned_tstrings = 0;
};

}  // namespace c_api
}  // namespace stepflow

struct TF_Tensor {
  TF_DataType dtype = TF_FLOAT;
  std::vector<int64_t> dims;
  std::shared_ptr<stepflow::c_api::TensorStorage> storage;  // Never null.
};

// An operation being built: everything is kept as NodeDef pieces and
// validated at TF_FinishOperation (by importing a one-node GraphDef).
struct TF_OperationDescription {
  TF_Graph* graph = nullptr;
  stepflow::NodeDef node_def;  // name, op, device and attrs.
  // Data inputs as added: one entry per TF_AddInput (one output) or
  // TF_AddInputList (a list), matched in order with the OpDef's input args
  // to infer type and length attrs ("T", "N", list(type)) as TensorFlow's
  // builder does.
  std::vector<std::vector<TF_Output>> input_groups;
  std::vector<std::string> control_inputs;  // Operation names.
  std::set<std::string> colocation;         // "loc:@name".
  // First builder misuse, reported by TF_FinishOperation.
  absl::Status error;
};

struct TF_ImportGraphDefOptions {
  std::string prefix;
  std::string default_device;
  bool uniquify_names = false;
  bool uniquify_prefix = false;
  // (source name, source index) -> existing output, in insertion order.
  std::vector<std::pair<std::pair<std::string, int>, TF_Output>> input_map;
  std::map<std::string, TF_Operation*> control_map;
  std::vector<TF_Operation*> control_dependencies;
  std::vector<std::pair<std::string, int>> return_outputs;
  std::vector<std::string> return_operations;
  // A node colocated ("loc:@x") with a node neither imported nor in the
  // graph fails the import (TensorFlow's default); off, it imports.
  bool validate_colocation_constraints = true;
};

struct TF_ImportGraphDefResults {
  std::vector<TF_Output> return_outputs;
  std::vector<TF_Operation*> return_operations;
  std::vector<std::string> missing_names;
  std::vector<const char*> missing_name_ptrs;
  std::vector<int> missing_indexes;
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

// A session without a TF_Graph (TF_NewDeprecatedSession): the caller sends
// GraphDefs with TF_ExtendGraph and names endpoints by string.
struct TF_DeprecatedSession {
  std::unique_ptr<stepflow::Session> session;
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
  // Set on the condition and body graphs of a TF_NewWhile: the graph the
  // loop goes into and the loop's inputs there.
  TF_Graph* while_parent = nullptr;
  std::vector<TF_Output> while_inputs;
  // The inferred shape of every output (TF_FinishOperation and imports add
  // nodes to it), refined by TF_GraphSetTensorShape.
  stepflow::ShapeRefiner refiner ABSL_GUARDED_BY(mu);
  // Set by the test-only early_graph_free planted bug
  // (runtime/framework/planted_bug.h) when it counted this graph as freed
  // early; the destructor then does not count it again.
  bool counted_freed_early = false;

  int num_sessions() const ABSL_SHARED_LOCKS_REQUIRED(mu) {
    return static_cast<int>(sessions.size());
  }
};

// A FunctionDef owned by the caller (TF_DeleteFunction).
struct TF_Function {
  stepflow::FunctionDef fdef;
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

// `message` serialized with map entries sorted by key (the same bytes for
// the same message, as TensorFlow's serialized FunctionDefs are).
std::string SerializeDeterministic(
    const google::protobuf::MessageLite& message);

// Replaces `buffer`'s bytes (freeing the old ones with its deallocator) by
// a malloc'd copy of `bytes`, freed by TF_DeleteBuffer.
void SetBufferBytes(const std::string& bytes, TF_Buffer* buffer);

// The Tensor a TF_Tensor feeds: shares a runtime buffer of the same type
// and element count, copies otherwise (TF_TString elements become strings).
// InvalidArgument for resource/variant tensors or a byte size that does
// not match the shape.
absl::Status TensorFromC(const TF_Tensor& t, Tensor* out);
// A new TF_Tensor: sharing `t`'s buffer for fixed-size types, TF_TString
// copies for strings. Unimplemented for resource and variant tensors.
absl::Status TensorToC(const Tensor& t, TF_Tensor** out);

// Hands `tensors` to the caller as new TF_Tensors in output_values; on
// error none is returned (all entries stay NULL).
absl::Status ExportOutputs(const std::vector<Tensor>& tensors,
                           TF_Tensor** output_values, int noutputs);

// Runs one step of `session` for the C run calls: parses run_options (may
// be NULL), requires run_metadata to be NULL or empty and fills it, and
// exports the fetched tensors into output_values (all NULL on error).
absl::Status RunStep(Session* session, const TF_Buffer* run_options,
                     const Session::FeedList& feeds,
                     const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets,
                     TF_Buffer* run_metadata, TF_Tensor** output_values,
                     int noutputs);

// A runtime session for the C options (the process Env unless one is set).
absl::Status NewRuntimeSession(const TF_SessionOptions& opts,
                               std::unique_ptr<Session>* session);

// `base`, or base_1, base_2, ...: the first name that neither names an
// operation of `graph` nor prefixes one ("<name>/...").
std::string UniqueScope(const Graph& graph, const std::string& base);

// True if `op` is a live operation of `graph` (not another graph's).
bool InGraph(const TF_Graph& graph, const Node* op)
    ABSL_SHARED_LOCKS_REQUIRED(graph.mu);

// The NodeDef of `node` with its inputs rebuilt from its current in-edges
// (data inputs by slot, then control inputs sorted by name), so control
// inputs and edge updates made after creation are included.
void NodeToDef(const Node& node, NodeDef* def);

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
