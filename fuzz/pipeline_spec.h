// PipelineSpec: the structure the pipeline fuzzer decodes from its bytes —
// a small graph over a fixed set of ops, an execution request (feeds,
// fetches, targets) and placement inputs for up to kMaxDevices local CPUs.
//
// Each node has a fixed-size byte layout (mutating one field never shifts
// the others); references to other nodes are taken modulo (nodes + 1), the
// extra value meaning a node that does not exist, so inputs may dangle,
// point forward or form cycles. Choices are decoded with FuzzInput and
// written back with FuzzOutput by the same TransferPipelineSpec template,
// so EncodePipelineSpec(spec) decodes to `spec` for any in-range spec.
//
// BuildGraphDef turns a spec into a GraphDef; it never validates (import
// is the code under test). Thread-compatible; no global state.
#ifndef STEPFLOW_FUZZ_PIPELINE_SPEC_H_
#define STEPFLOW_FUZZ_PIPELINE_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "proto/graph.pb.h"

namespace stepflow::fuzzing {

inline constexpr int kMaxDevices = 4;
inline constexpr int kMaxNodes = 16;
inline constexpr int kMaxDataInputs = 3;
inline constexpr int kMaxControlInputs = 2;
inline constexpr int kMaxFeeds = 3;
inline constexpr int kMaxFetches = 3;
inline constexpr int kMaxTargets = 2;

enum SpecOp {
  kConst,
  kPlaceholder,
  kIdentity,
  kAddV2,
  kMul,
  kNoOp,
  kSwitch,
  kMerge,
  kEnter,
  kExit,
  kNextIteration,
  kLoopCond,
  kVariableV2,
  kAssign,
  kNumSpecOps,
};
// Spellings of the requested-device choices (see DeviceRequest).
inline constexpr int kNumDeviceRequests = 9;
inline constexpr int kNumDtypes = 3;  // float, int32, bool

struct InputSpec {
  int node = 0;    // In [0, num nodes]; num nodes means "missing".
  int output = 0;  // In [0, 2].
};

struct NodeSpec {
  int op = kConst;  // SpecOp.
  int dtype = 0;    // 0 float, 1 int32, 2 bool.
  int merge_n = 1;  // Merge's N, in [1, kMaxDataInputs].
  InputSpec inputs[kMaxDataInputs];
  int num_control = 0;  // In [0, kMaxControlInputs].
  int control[kMaxControlInputs] = {0, 0};
  int device = 0;        // Requested-device spelling, [0, kNumDeviceRequests).
  int device_index = 0;  // CPU index used by the spelling, [0, kMaxDevices].
  int colocate = 0;      // 0: none; k: "_class" = "loc:@<node k-1>".
  int assign = 0;        // Pre-assigned device before placement: 0 none,
                         // k in [1, kMaxDevices]: CPU:k-1, kMaxDevices+1:
                         // a device that does not exist.
  int value = 0;         // Const's value, [0, 255].
  int frame = 0;         // Enter: 0 "f0", 1 "f1", 2 "f0" with is_constant.
};

struct EndpointSpec {
  int node = 0;       // In [0, num nodes]; num nodes means "missing".
  int output = 0;     // In [0, 2].
  bool bare = false;  // Spell output 0 as "name" instead of "name:0".
};

struct PipelineSpec {
  int num_devices = 1;                // In [1, kMaxDevices].
  std::vector<NodeSpec> nodes;        // 1..kMaxNodes.
  std::vector<EndpointSpec> feeds;    // 0..kMaxFeeds.
  std::vector<EndpointSpec> fetches;  // 0..kMaxFetches.
  std::vector<int> targets;           // 0..kMaxTargets node references.
  bool use_function_convention = true;
  bool allow_soft_placement = false;
};

// Decodes / encodes a spec with FuzzInput / FuzzOutput (see the file
// comment for the layout).
template <typename Io>
void TransferPipelineSpec(Io& io, PipelineSpec* spec) {
  io.Choice(&spec->num_devices, 1, kMaxDevices);
  int num_nodes = static_cast<int>(spec->nodes.size());
  io.Choice(&num_nodes, 1, kMaxNodes);
  spec->nodes.resize(num_nodes);
  for (NodeSpec& n : spec->nodes) {
    io.Choice(&n.op, 0, kNumSpecOps - 1);
    io.Choice(&n.dtype, 0, kNumDtypes - 1);
    io.Choice(&n.merge_n, 1, kMaxDataInputs);
    for (InputSpec& in : n.inputs) {
      io.Choice(&in.node, 0, num_nodes);
      io.Choice(&in.output, 0, 2);
    }
    io.Choice(&n.num_control, 0, kMaxControlInputs);
    for (int& c : n.control) io.Choice(&c, 0, num_nodes);
    io.Choice(&n.device, 0, kNumDeviceRequests - 1);
    io.Choice(&n.device_index, 0, kMaxDevices);
    io.Choice(&n.colocate, 0, num_nodes);
    io.Choice(&n.assign, 0, kMaxDevices + 1);
    io.Choice(&n.value, 0, 255);
    io.Choice(&n.frame, 0, 2);
  }
  auto endpoints = [&](std::vector<EndpointSpec>* v, int max) {
    int count = static_cast<int>(v->size());
    io.Choice(&count, 0, max);
    v->resize(count);
    for (EndpointSpec& e : *v) {
      io.Choice(&e.node, 0, num_nodes);
      io.Choice(&e.output, 0, 2);
      io.Bool(&e.bare);
    }
  };
  endpoints(&spec->feeds, kMaxFeeds);
  endpoints(&spec->fetches, kMaxFetches);
  int num_targets = static_cast<int>(spec->targets.size());
  io.Choice(&num_targets, 0, kMaxTargets);
  spec->targets.resize(num_targets);
  for (int& t : spec->targets) io.Choice(&t, 0, num_nodes);
  io.Bool(&spec->use_function_convention);
  io.Bool(&spec->allow_soft_placement);
}

PipelineSpec DecodePipelineSpec(const uint8_t* data, size_t size);
std::string EncodePipelineSpec(const PipelineSpec& spec);

// "n<i>" for i < nodes, "missing" otherwise.
std::string SpecNodeName(const PipelineSpec& spec, int node);
// "/job:localhost/replica:0/task:0/device:CPU:<i>".
std::string LocalCpuName(int i);
// The requested-device string of `n` (possibly partial, legacy, naming a
// device that does not exist, or unparseable).
std::string DeviceRequest(const NodeSpec& n);
// "node" or "node:i".
std::string EndpointName(const PipelineSpec& spec, const EndpointSpec& e);

// The GraphDef the spec describes (no validation).
GraphDef BuildGraphDef(const PipelineSpec& spec);

}  // namespace stepflow::fuzzing

#endif  // STEPFLOW_FUZZ_PIPELINE_SPEC_H_
