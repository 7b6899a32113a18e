// FunctionLibraryRuntime: what a kernel sees of the function runtime of
// the device it runs on (TensorFlow's FunctionLibraryRuntime). Call kernels
// (PartitionedCall, If, Case, While) instantiate a library function once
// and run it, asynchronously, as a graph of its own on that device.
//
// Instantiate(function, attrs) returns a handle valid for the runtime's
// lifetime; the same (function, attrs) always gives the same handle. It
// fails with the instantiation's error: NotFound for a function the
// library lacks, InvalidArgument for a malformed or recursive function or
// for calls nesting deeper than the runtime allows.
//
// Run(options, handle, args, rets, done) feeds `args` to the body's _Arg
// nodes, runs the body as one step of its executor and, on success, moves
// its results into *rets before calling `done` exactly once (through the
// device's Scheduler, never inline). The step uses the caller's step id,
// rendezvous, cancellation manager and step container, so stateful bodies
// see the session's resources (variables live in the device's
// ResourceMgr) and cancelling the caller's step cancels the call. With a
// stats collector, body nodes are recorded as "<options.caller>/<node>".
// Errors: InvalidArgument for an unknown handle or args whose count or
// dtypes disagree with the function's arguments; otherwise the body's
// first error, unchanged (callers add their own node name).
//
// Ownership: the runtime owns the instantiated bodies; the caller keeps
// args' Tensors alive only for the call (they are moved in), and `rets`
// and everything in Options alive until `done`. Thread-safety: both
// methods are thread-safe.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_RUNTIME_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_RUNTIME_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/map.h"
#include "proto/attr_value.pb.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/types.h"

namespace stepflow {

class StepStatsCollector;

class FunctionLibraryRuntime {
 public:
  using Handle = int64_t;
  using AttrMap = google::protobuf::Map<std::string, AttrValue>;
  using DoneCallback = std::function<void(const absl::Status&)>;

  struct Options {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    ScopedStepContainer* step_container = nullptr;
    StepStatsCollector* stats_collector = nullptr;
    // The calling node's name: the prefix of the body's step stats.
    std::string caller;
  };

  virtual ~FunctionLibraryRuntime() = default;

  virtual absl::Status Instantiate(const std::string& function,
                                   const AttrMap& attrs, Handle* handle) = 0;

  // The flat argument and result types of an instantiated function; empty
  // for an unknown handle.
  virtual DataTypeVector ArgTypes(Handle handle) const = 0;
  virtual DataTypeVector RetTypes(Handle handle) const = 0;

  virtual void Run(const Options& options, Handle handle,
                   std::vector<Tensor> args, std::vector<Tensor>* rets,
                   DoneCallback done) = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_FUNCTION_RUNTIME_H_
