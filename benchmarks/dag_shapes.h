// DAG shapes shared by the scheduling benchmarks, and the GraphDefs that
// realise them.
//
// A DagShape is a directed acyclic graph given by each node's predecessors;
// every predecessor id is smaller than the node's own id, so the id order
// is a topological order. The same DagShape drives the stepflow executor,
// the oneTBB flow graph and the pending-count floor, so every peer runs
// exactly the same dependency structure.
//
// Everything here is deterministic: the random shapes come from a fixed
// seed (std::mt19937_64), never from entropy.
//
// Thread-compatible value types; no global state.
#ifndef STEPFLOW_BENCHMARKS_DAG_SHAPES_H_
#define STEPFLOW_BENCHMARKS_DAG_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/graph.pb.h"

namespace stepflow::bench {

struct DagShape {
  std::string name;
  // preds[i]: the nodes node i waits for (all < i, no duplicates).
  std::vector<std::vector<int>> preds;

  int num_nodes() const { return static_cast<int>(preds.size()); }
  int64_t num_edges() const;
};

// 0 -> 1 -> ... -> n-1.
DagShape ChainShape(int n);
// Node 0 feeds `width` middle nodes, which all feed the last node
// (width + 2 nodes).
DagShape FanOutInShape(int width);
// Layers of `layer_width` nodes; each node past the first layer waits for
// `in_degree` distinct random nodes of the previous layer (n nodes in all,
// the last layer possibly partial).
DagShape RandomLayeredShape(int n, int layer_width, int in_degree,
                            uint64_t seed);

// The successors of every node (CSR form), for schedulers that push.
struct Successors {
  std::vector<int64_t> begin;  // num_nodes + 1 offsets into `ids`.
  std::vector<int> ids;
};
Successors ComputeSuccessors(const DagShape& shape);

// The shape as a GraphDef of NoOps ("n<i>") whose inputs are control
// inputs ("^n<p>"): pure scheduling, no values.
GraphDef NoOpGraphDef(const DagShape& shape);
// The shape with scalar float values: roots are Consts, every other node
// an Identity whose data input is its first predecessor and whose control
// inputs are the rest.
GraphDef IdentityGraphDef(const DagShape& shape);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_DAG_SHAPES_H_
