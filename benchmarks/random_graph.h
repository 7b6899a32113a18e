// Large random client graphs for the graph-pipeline benchmark (import,
// prune, place, partition), shaped like a model split over several devices.
//
// PipelineGraph(n, num_devices, seed) returns n + 2 nodes:
//  * "x", a float Placeholder on CPU:0 (the benchmark feeds it);
//  * "n0" .. "n<n-1>": scalar float Consts (n0 and about one in 200),
//    Identity (one input), Add / Mul (two inputs) or NoOp (two control
//    inputs), their producers drawn among the previous 64 nodes (now and
//    then "x"); one node in 16 also takes a control input from that window;
//  * every run of 256 consecutive nodes requests one device, drawn at
//    random from "/job:localhost/replica:0/task:0/device:CPU:<0..d-1>", so
//    the edges at block boundaries cross devices, as in a model split over
//    devices;
//  * "train", a NoOp (no device requested) with a control input from nine
//    in ten of the nodes nothing else consumes: the target. The others (and
//    what only they reach) are dead code for pruning to remove.
// `fetch` is the last n<i> with an output.
// Deterministic for a seed (std::mt19937_64). Thread-compatible.
#ifndef STEPFLOW_BENCHMARKS_RANDOM_GRAPH_H_
#define STEPFLOW_BENCHMARKS_RANDOM_GRAPH_H_

#include <cstdint>
#include <string>

#include "proto/graph.pb.h"

namespace stepflow::bench {

struct PipelineGraphDef {
  GraphDef graph;
  std::string feed;    // "x:0".
  std::string fetch;   // "<last node with an output>:0".
  std::string target;  // "train".
};

PipelineGraphDef PipelineGraph(int n, int num_devices, uint64_t seed);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_RANDOM_GRAPH_H_
