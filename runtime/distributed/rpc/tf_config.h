// TF_CONFIG: the cluster and task of a server as TensorFlow users write
// them, in the TF_CONFIG environment variable —
//
//   {"cluster": {"chief": ["host:2222"], "ps": ["host:2223"],
//                "worker": ["host:2224", "host:2225"]},
//    "task": {"type": "worker", "index": 1}}
//
// A job's tasks are a list (task i is the i-th address) or, as
// TensorFlow also allows, an object from task index to address
// ({"0": "host:2224", "2": "host:2226"}). Other top-level keys TensorFlow
// defines ("environment", "rpc_layer", ...) are ignored, as TensorFlow's
// cluster resolver ignores them.
//
// grpc_server takes its cluster, job and task index from its flags and
// from TF_CONFIG: a flag that is given wins over TF_CONFIG for what it
// sets (--cluster over "cluster", --job over "task.type", --task over
// "task.index"); what neither gives defaults to job "worker", task 0.
//
// Errors are InvalidArgument starting "TF_CONFIG: " for TF_CONFIG's own
// faults (not JSON, a field of the wrong type, a bad address) and naming
// the job and the cluster's jobs or tasks for a task type or index the
// cluster does not have.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TF_CONFIG_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TF_CONFIG_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/distributed/rpc/cluster_spec.h"

namespace stepflow {

struct TfConfig {
  ClusterSpec cluster;  // Empty if TF_CONFIG has no "cluster".
  bool has_task_type = false;
  std::string task_type;
  bool has_task_index = false;
  int task_index = 0;
};

// Parses TF_CONFIG's JSON text into `*out`.
absl::Status ParseTfConfig(absl::string_view json, TfConfig* out);

// The flags of grpc_server that TF_CONFIG can stand in for; "" and -1 are
// "not given".
struct ServerTaskFlags {
  std::string cluster;  // --cluster (see cluster_spec.h)
  std::string job;      // --job
  int task = -1;        // --task
};

// The task this server serves, from `flags` over `tf_config` (the
// variable's value; null or empty when unset), as described above.
// InvalidArgument when neither gives a cluster, or the task is not one of
// the cluster's.
absl::Status ResolveServerTask(const ServerTaskFlags& flags,
                               const char* tf_config, ClusterSpec* cluster,
                               std::string* job, int* task_index);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TF_CONFIG_H_
