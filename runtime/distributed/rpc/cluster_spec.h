// ClusterSpec: the jobs of a cluster and the address of each of their
// tasks, as TensorFlow's tf.train.ClusterSpec holds them — job name ->
// task index -> "host:port". Jobs may have any name TensorFlow allows
// ([a-z][a-z0-9_]*: "worker", "ps", "chief", ...); a job's task indices
// need not be contiguous (TensorFlow's {"worker": {"0": ..., "2": ...}}).
// Task i of job J is the task "/job:J/replica:0/task:i".
//
// The --cluster flag of grpc_server writes one as
//   worker=host:port,host:port;ps=host:port;chief=host:port
// (jobs separated by ';', task i is the i-th address of its job).
//
// Errors are InvalidArgument naming the offending job, task or text.
// Thread-safety: a value type (const methods may be called concurrently).
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_CLUSTER_SPEC_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_CLUSTER_SPEC_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stepflow {

class ClusterSpec {
 public:
  // Adds task `index` of `job` at `address`. InvalidArgument for a job
  // name TensorFlow would not accept, a negative index, an address that
  // is not host:port (port 0..65535), or a task listed twice.
  absl::Status AddTask(absl::string_view job, int index,
                       absl::string_view address);

  bool empty() const { return jobs_.empty(); }
  // Job -> task index -> address, in sorted order.
  const std::map<std::string, std::map<int, std::string>>& jobs() const {
    return jobs_;
  }

  // The address of task `index` of `job`; InvalidArgument naming the jobs
  // of the cluster for an unknown job, and the job's tasks for an index
  // it does not have.
  absl::Status FindTask(const std::string& job, int index,
                        std::string* address) const;

  // Every task's name ("/job:J/replica:0/task:i") -> address.
  std::map<std::string, std::string> TaskAddresses() const;

  // "/job:<job>/replica:0/task:<index>".
  static std::string TaskName(absl::string_view job, int index);

 private:
  std::map<std::string, std::map<int, std::string>> jobs_;
};

// Parses the --cluster text above into `*out` (replacing it).
absl::Status ParseClusterFlag(absl::string_view spec, ClusterSpec* out);

// Splits "host:port"; InvalidArgument unless the port is 0..65535 and the
// host is not empty.
absl::Status SplitHostPort(absl::string_view address, std::string* host,
                           int* port);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_CLUSTER_SPEC_H_
