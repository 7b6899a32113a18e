// Device requests: pinning parts of a GraphDef to devices from the command
// line, the way `with tf.device(...)` around a name scope would have.
//
// A request "PREFIX=DEVICE" asks for DEVICE on every node whose name is
// PREFIX or starts with PREFIX + "/" (so "w" covers "w", "w/Assign" and
// "w/read" but not "weights"; "train/update_w" covers the optimizer's
// "train/update_w/ApplyGradientDescent"). A trailing "/" on PREFIX is
// ignored. DEVICE is any full or partial device name
// (runtime/framework/device_name_utils.h), e.g.
// "/job:worker/replica:0/task:1" or "/cpu:1"; it is stored in its
// canonical spelling. The placer still colocates what must be colocated
// (a variable and its ref consumers) and fills in unset components.
//
// When several requests cover one node, the longest PREFIX wins, so the
// order of the requests does not matter ("train=/job:worker/task:0" with
// "train/update_w=/job:worker/task:1"). A request replaces whatever device
// the GraphDef gave the node.
//
// Errors (all InvalidArgument, naming the request): no "=", an empty
// PREFIX or DEVICE, a PREFIX that is not a valid node name, an
// unparseable DEVICE, the same PREFIX requested twice, and a PREFIX that
// matches no node of the graph (a typo should not silently run
// everything on the default device). On error the graph is unchanged.
//
// Pure functions; thread-compatible.
#ifndef STEPFLOW_RUNTIME_BIN_DEVICE_REQUESTS_H_
#define STEPFLOW_RUNTIME_BIN_DEVICE_REQUESTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"

namespace stepflow {

struct DeviceRequest {
  std::string prefix;  // Node name or name scope, without a trailing "/".
  std::string device;  // Canonical device name.
};

// Parses "PREFIX=DEVICE".
absl::Status ParseDeviceRequest(absl::string_view spec, DeviceRequest* out);

// Sets NodeDef.device of every node covered by `requests` (longest prefix
// wins). Leaves `graph` untouched on error.
absl::Status ApplyDeviceRequests(const std::vector<DeviceRequest>& requests,
                                 GraphDef* graph);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_BIN_DEVICE_REQUESTS_H_
