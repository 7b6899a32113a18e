// Graph partitioning: splits a placed graph into one GraphDef per location
// (a device locally; a task on the distributed master), joining the pieces
// with _Send/_Recv pairs.
//
// For every data edge src:i -> dst whose endpoints lie in different
// locations, the source partition gets
//     _Send(src:i)  tensor_name = "edge_<edgeId>_<srcName>"
// and the destination partition a _Recv with the same tensor_name; both
// carry send_device (src's assigned device), send_device_incarnation
// (opts.get_incarnation(send_device)), recv_device (dst's assigned device)
// and client_terminated = false. The Recv's tensor_type (and the Send's T)
// is the base type of dst's input. One pair serves every consumer of src:i
// in one destination location; `edgeId` is the first such edge in
// (consumer id, input slot) order.
//
// A cross-location control edge src -> dst becomes, in src's partition, a
// dummy scalar float Const with a control input from src feeding a _Send,
// and in dst's partition a _Recv -> Identity whose output dst takes as a
// control input. One such chain serves every control consumer of src in one
// destination location.
//
// While loops split across locations (TensorFlow's AddControlFlow): the
// loop's frame leader is the location of its LoopCond. For every frame F
// with a cross-location edge inside it (its source's values and its
// destination's inputs both in F) and every destination location L of such
// an edge, L gets a control loop for F, on the destination node's device:
//     dummy -> Enter(F) -> Merge -> Switch(pred) -:1-> NextIteration -> Merge
//                                               -:0-> Exit
// (all scalar float; node names start with "_cloop"). `dummy` is a Const
// for a top-level frame and, for a nested frame, the Merge of the
// enclosing frame's control loop on L (built the same way). `pred` is F's
// LoopCond, which crosses to L through an ordinary Send/Recv; in a graph
// that an earlier Partition already split (so F's LoopCond lies elsewhere)
// it is the predicate input of one of the "_cloop" Switches in F. Every
// Recv of an edge inside F takes a control input from the control loop's
// Merge, so it runs once per iteration and F terminates on L when the
// predicate turns false. Before that, a non-constant (non-ref) Enter or a
// NextIteration whose first data consumer lies elsewhere moves to that
// consumer's device (their values exist only in some iterations, so they
// cannot cross locations); `g` keeps these control-loop nodes and device
// changes.
//
// Each op node appears in exactly one partition, with device set to its
// assigned device and inputs rewritten; SOURCE/SINK and their edges are not
// reproduced. Every partition carries g's versions and function library.
// Names of added nodes come from opts.new_name(<source node name>) (for
// control loops, opts.new_name("_cloop<destination node name>")).
// Nodes and edges are visited in id order, so the output is deterministic.
//
// Errors (partitions is then unspecified):
//   InvalidArgument  an option is unset; an op node has no assigned device;
//                    a node has a data input slot without an edge ("missing
//                    inputs"); a frame split across locations has no
//                    LoopCond; the message names the node or frame.
//   Unimplemented    a non-constant Enter or a NextIteration still feeds a
//                    node on another location after the move above (e.g.
//                    consumers on two locations).
//
// `g` is modified as described above. Thread-compatible.
#ifndef STEPFLOW_RUNTIME_GRAPH_PARTITION_H_
#define STEPFLOW_RUNTIME_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/graph/graph.h"

namespace stepflow {

struct PartitionOptions {
  // The partition key of an op node (e.g. its assigned device, or its task).
  std::function<std::string(const Node*)> node_to_loc;
  // A node name unique across every partition, derived from `prefix`.
  std::function<std::string(const std::string& prefix)> new_name;
  // The incarnation of the device called `device_name` (for Send/Recv
  // send_device_incarnation attrs).
  std::function<uint64_t(const std::string& device_name)> get_incarnation;
  // When true, each op node's NodeDef moves into its partition
  // (Graph::TakeNodeDef) instead of its name, op and attrs being copied:
  // fewer allocations and less peak memory on large graphs. Once Partition
  // returns OK, g's op nodes have no NodeDefs and g is fit only for
  // destruction; after an error g is as with false. For callers that
  // discard g once it is partitioned.
  bool take_node_defs = false;
};

// See the file comment. `partitions` is cleared first; keys are locations.
absl::Status Partition(const PartitionOptions& opts, Graph* g,
                       std::map<std::string, GraphDef>* partitions);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_PARTITION_H_
