// TensorFlow 1.x while loops as GraphDefs, written the way tf.while_loop
// emits them (frame "while/while_context", Enter, Merge, Less, LoopCond,
// Switch, Identity, body, NextIteration, Exit; loop-invariant inputs
// through Enter with is_constant = true; nested loops in frame
// "while/while/while_context" with outer values entered twice), with a
// caller-chosen device per node. Testonly.
//
// Graphs (all counts int32 Placeholders, `x` a float [2, 3] Placeholder):
//   CounterLoopGraph:     i = 0; while i < n: i += 1
//                         fetch "while/Exit" = n.
//   AccumulateLoopGraph:  i, acc, seq = 0, zeros([2, 3]), zeros([0])
//                         while i < n:
//                           acc += x * float(i)
//                           seq = concat([seq, [float(i)]], 0)  # grows
//                           i += 1
//                         fetch "while/Exit" = n,
//                               "while/Exit_1" = x * n (n - 1) / 2,
//                               "while/Exit_2" = [0, 1, ..., n - 1].
//   NestedLoopGraph:      i, c = 0, zeros([2, 3])
//                         while i < n:
//                           j = 0
//                           while j < m: j, c = j + 1, c + x
//                           i += 1
//                         fetch "while/Exit" = n, "while/Exit_1" = x * n * m.
//
// Placement decides each node's device from (node name, op); "" leaves
// the node to the placer. Pure functions; thread-safe except that a
// Placement made by RandomLoopPlacement must be used from one thread.
#ifndef STEPFLOW_TESTING_WHILE_LOOP_GRAPHS_H_
#define STEPFLOW_TESTING_WHILE_LOOP_GRAPHS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "proto/graph.pb.h"

namespace stepflow {

using LoopPlacement =
    std::function<std::string(const std::string& node, const std::string& op)>;

GraphDef CounterLoopGraph(const LoopPlacement& place);
GraphDef AccumulateLoopGraph(const LoopPlacement& place);
GraphDef NestedLoopGraph(const LoopPlacement& place);

// Every node on `device` ("/cpu:0").
LoopPlacement AllOnDevice(const std::string& device);

// The loop machinery (Enter, Merge, Switch, NextIteration, Exit, LoopCond,
// the condition) and everything outside the loops on `control`; the body
// (its Identity inputs and arithmetic) on `body`. Every loop variable then
// crosses devices twice per iteration.
LoopPlacement SplitBodyFromControl(const std::string& control,
                                   const std::string& body);

// Each node on /cpu:0 or /cpu:1 by `draw() & 1`, drawn once per node (in
// the order the builder asks); a Switch goes where its Merge went, as its
// _class attr asks.
LoopPlacement RandomLoopPlacement(std::function<uint64_t()> draw);

}  // namespace stepflow

#endif  // STEPFLOW_TESTING_WHILE_LOOP_GRAPHS_H_
