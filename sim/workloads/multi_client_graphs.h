// Graph builders and references for the multi-client workload
// (sim/workloads/multi_client_workload.h): while loops written the way
// tf.while_loop emits them, a linear-regression training graph, extension
// imports for random DAGs, fault injection, and the closed-form /
// double-precision references the invariant checker compares against.
//
// Every builder is deterministic given its Random; devices are named
// /job:localhost/replica:0/task:0/device:CPU:<i>.
//
// Thread-safety: plain functions.
#ifndef STEPFLOW_SIM_MIXED_GRAPHS_H_
#define STEPFLOW_SIM_MIXED_GRAPHS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/repeated_field.h"
#include "proto/graph.pb.h"
#include "proto/sim_workload.pb.h"
#include "runtime/env/random.h"

namespace stepflow {
namespace multi_client {

inline constexpr int kGraphProducer = 26;

// COUNTER_LOOP / SUM_LOOP (trip count fed through int32 placeholder "n") or
// NESTED_LOOP (spec.outer_trips x spec.inner_trips constants), each node on
// a random one of spec.num_devices devices (a Switch on its Merge's).
GraphDef BuildLoopGraph(const SimGraph& spec, Random* random);

// Linear regression over spec.batch_x/batch_y (constants) with learning
// rate spec.learning_rate: variables w, b; targets "init" (w = b = 0) and
// "train" (one gradient-descent step on the mean squared error). A
// resource variable "steps" counts the train steps through stateful
// function bodies: init assigns it 0, train also runs "count_step" (a
// StatefulPartitionedCall whose body adds 1 and reads it), and fetching
// "read_steps" (a StatefulPartitionedCall whose body reads it) gives the
// count. Variables and their updates and calls on CPU:0, the rest on random
// devices.
GraphDef BuildTrainingGraph(const SimGraph& spec, Random* random);

// Nodes "<prefix><i>" (float Const/Placeholder/Identity/Add/AddV2/Mul/NoOp)
// whose inputs come from `existing` nodes with a float output 0 (not NoOp,
// not an int32 Const) or from earlier new ones, on random devices. They
// call no function.
GraphDef BuildDagExtension(const GraphDef& existing, int num_devices,
                           const std::string& prefix, int num_nodes,
                           Random* random);

// Applies `faults` to `graph`: node N becomes "N/sim_inner" and a new
// SimDelay/SimFail node named N (same device, float) wraps it.
// InvalidArgument for an unknown node or fault kind.
absl::Status ApplyFaults(
    const google::protobuf::RepeatedPtrField<SimFault>& faults,
    GraphDef* graph);

// Closed-form loop results for the loop graphs' fetches ("while/Exit",
// "while/Exit_1", with or without ":0"), given the fed trip count `n`
// (ignored for NESTED_LOOP). False for an unknown fetch.
bool LoopReference(const SimGraph& spec, int32_t n, const std::string& fetch,
                   int64_t* value);

// One gradient-descent step of the training graph in double precision.
struct SgdState {
  double w = 0;
  double b = 0;
  double steps = 0;  // train steps since init
};
void SgdStep(const SimGraph& spec, SgdState* state);

}  // namespace multi_client
}  // namespace stepflow

#endif  // STEPFLOW_SIM_MIXED_GRAPHS_H_
