// Placer: assigns every op node of a Graph a device (TensorFlow's
// colocation-graph placer).
//
// Contract of PlaceGraph(opts, devices, graph):
//  * `devices` are the devices placement may use; each name must be a full
//    device name (/job:j/replica:r/task:t/device:TYPE:id) and each
//    DeviceAttributes.device_type its TYPE.
//  * A node that already has an assigned device keeps it; that device must be
//    one of `devices` (InvalidArgument naming node and device otherwise).
//  * A requested device (NodeDef.device) may be partial or a legacy short
//    form ("/cpu:1", "/device:CPU:1", "/job:localhost/cpu:1"); a spec that
//    does not parse is InvalidArgument naming node and spec.
//  * Colocation groups (union-find over nodes):
//      - `_class` entries "loc:@other" colocate a node with `other`; groups
//        are keyed by name, as in TensorFlow, so when no op node `other`
//        is in the graph (it was fed and pruned away: a Saver's ops
//        colocated with a fed filename, a tf.cond's Switch with a fed
//        predicate) the nodes naming it form a group of their own (whether
//        such names exist is for import to check: GraphConstructorOptions::
//        validate_colocation_constraints);
//      - a data edge into an input of ref type or DT_RESOURCE colocates the
//        consumer with the producer (the producer's request wins when the
//        two requests are incompatible, as in TensorFlow);
//    a group's requests merge with DeviceNameUtils::MergeDevNames; a
//    conflict is InvalidArgument naming both nodes and both devices unless
//    `allow_soft_placement`. Two different assigned devices in one group, or
//    members with no device type in common, are always InvalidArgument.
//  * A node supports the device types (among those of `devices`) for which
//    KernelRegistry::Global()->HasKernel(type, def) holds; none at all is
//    InvalidArgument naming op and node. A group supports the intersection.
//  * A group's candidates are the devices that match its merged request and
//    have a supported type. Candidates are ordered: `default_device` first
//    (when it is a candidate), then by device type priority (GPU before CPU
//    before other types), then by job, replica, task, type and id. When the
//    request matches no supported device:
//      - with allow_soft_placement the request is relaxed to its job/replica/
//        task part (type and id dropped), and if that still matches no
//        supported device, to any supported device;
//      - otherwise InvalidArgument "Cannot assign a device for operation
//        {{node x}}: Could not satisfy explicit device specification '...'"
//        saying whether no device matches (listing the available devices) or
//        no kernel exists for the matching device types (naming the op).
//  * Every group gets one device: its first candidate, except that a
//    "generator" (no inputs, one non-ref output) whose group is not yet
//    placed goes where all its consumers went when that device is one of its
//    candidates (TensorFlow's generator heuristic; avoids needless copies).
//  * Nodes are visited in id order; the result never depends on hash order or
//    pointer values.
//  * On error the graph is left unchanged (no node gets a device).
//  * With log_device_placement, after success, `log_sink` receives one line
//    "<name>: (<op>): <device>" per op node in id order.
//
// Thread-compatible: needs exclusive access to `graph`; reads the global
// kernel registry.
#ifndef STEPFLOW_RUNTIME_COMMON_PLACER_H_
#define STEPFLOW_RUNTIME_COMMON_PLACER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "proto/device_attributes.pb.h"
#include "runtime/graph/graph.h"

namespace stepflow {

struct PlacerOptions {
  // The client device (CPU:0 locally): preferred for every group it can
  // serve. Borrowed; may be null.
  const DeviceAttributes* default_device = nullptr;
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  // Receives "name: (Op): /job:.../device:CPU:0" lines when logging.
  std::function<void(const std::string&)> log_sink;
};

// Assigns every op node of `graph` a device from `devices` (see above).
absl::Status PlaceGraph(const PlacerOptions& opts,
                        absl::Span<const DeviceAttributes> devices,
                        Graph* graph);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_PLACER_H_
