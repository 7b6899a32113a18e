// Test-only builders and rapidcheck generators of random graphs.
//
// NodeDef builders return complete NodeDefs (every attr the op needs) for
// the float ops the generators use. GenRandomDag produces acyclic GraphDefs
// over Const/Placeholder/Identity/Add/AddV2/Mul/NoOp with random fan-in and
// fan-out, random control edges and a random device per node drawn from N
// local CPU devices. With DagOptions.function_call_weight the DAG also
// carries a drawn FunctionDefLibrary and call sites of it
// (testing/function_generators.h). GenExecutionRequest draws feeds, fetches
// and targets that are valid for a given graph.
//
// Everything here is deterministic given rapidcheck's seed. Not for
// production code (testonly).
#ifndef STEPFLOW_TESTING_GRAPH_GENERATORS_H_
#define STEPFLOW_TESTING_GRAPH_GENERATORS_H_

#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "proto/graph.pb.h"

namespace stepflow::graph_testing {

// "/job:localhost/replica:0/task:0/device:CPU:<i>".
std::string LocalCpuDevice(int i);

// Scalar float Const.
NodeDef MakeConst(const std::string& name, float value);
// Float Placeholder of unknown shape.
NodeDef MakePlaceholder(const std::string& name);
// `op` is Identity, Add, AddV2 or Mul over float (T = float), or NoOp
// (no T). `inputs` are "x", "x:i" or "^x", data inputs first.
NodeDef MakeOp(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs);

// A random DAG and the devices its nodes were assigned to.
struct RandomDag {
  GraphDef graph;
  int num_devices = 0;
};
void showValue(const RandomDag& dag, std::ostream& os);

struct DagOptions {
  int min_nodes = 1;
  int max_nodes = 60;
  int min_devices = 2;
  int max_devices = 4;
  int max_control_inputs = 2;
  // Weight of a function call site among the node kinds (the others weigh
  // 2 or 3 each); 0 draws no library and no calls.
  int function_call_weight = 0;
  // Call sites may name the function as their op (TF_GraphImportGraphDef
  // refuses those; calls inside the library's functions may still).
  bool calls_by_name = true;
};

// True when output 0 of `def` is a float scalar the generators may feed,
// fetch and consume (every node but NoOp and the int32 Case indices).
bool HasFloatOutput(const NodeDef& def);

// Node i is named "n<i>"; its inputs come only from nodes < i, so the graph
// is acyclic and topologically ordered (a call site's helper Consts,
// "n<i>_index" / "n<i>_counter", come just before it). Each node's
// NodeDef.device is one of LocalCpuDevice(0 .. num_devices-1).
rc::Gen<RandomDag> GenRandomDag(const DagOptions& options = DagOptions());

struct ExecutionRequest {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};
void showValue(const ExecutionRequest& request, std::ostream& os);

// Feeds: distinct endpoints of nodes with float outputs; fetches: such
// endpoints (may repeat, spelled "n" or "n:0") never fed; targets: any nodes.
// At least one fetch or target. `graph` must have at least one node.
rc::Gen<ExecutionRequest> GenExecutionRequest(const GraphDef& graph);

}  // namespace stepflow::graph_testing

#endif  // STEPFLOW_TESTING_GRAPH_GENERATORS_H_
