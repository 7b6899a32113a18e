// OpSegment: the kernels one session shares across all of its executors
// (TensorFlow's OpSegment). Kernels of stateful user ops (random ops,
// readers, ...) are made once per (device, node) and handed to every
// executor that runs that node on that device, whichever signature or
// registered graph it belongs to, so kernel-held state (random streams)
// persists across Runs. Variables live in the devices' ResourceMgrs and
// need no sharing. Other kernels, and runtime-internal ops (names starting
// with '_': _Send, _Recv, _Arg, _Retval, ...), are made per executor.
//
// Both DirectSession (one per session) and GraphMgr (one per worker
// session) use it, through BuildPartitionExecutors.
//
// Ownership: devices are borrowed and must outlive the segment; shared
// kernels are reference-counted and live as long as any executor or the
// segment holds them.
// Thread-safety: thread-safe; concurrent GetOrCreateKernel calls for the
// same node return the same kernel (the first one stored wins).
#ifndef STEPFLOW_RUNTIME_COMMON_OP_SEGMENT_H_
#define STEPFLOW_RUNTIME_COMMON_OP_SEGMENT_H_

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/node_def.pb.h"
#include "runtime/common/device.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

class OpSegment {
 public:
  // Whether the kernel of `ndef` is shared: its op is registered, stateful
  // and not runtime-internal.
  static bool ShouldShare(const NodeDef& ndef);

  // The kernel for `ndef` on `device`. Shared kernels are looked up by
  // (device name, node name) and reused only for an identical NodeDef; a
  // node whose NodeDef changed gets a private kernel. Errors are
  // CreateOpKernel's (naming the node); nothing is stored then. With
  // `ndef_outlives_kernel` (an executor's own graph), a private kernel
  // keeps a reference to `ndef` instead of a copy; shared kernels, which
  // may outlive any one graph, always copy.
  absl::Status GetOrCreateKernel(Device* device, const NodeDef& ndef,
                                 std::shared_ptr<OpKernel>* kernel,
                                 bool ndef_outlives_kernel = false);

  // Number of shared kernels held (for tests).
  size_t size() const;

 private:
  struct Entry {
    NodeDef def;
    std::shared_ptr<OpKernel> kernel;
  };
  // Stores `made` unless another call stored a kernel for the same node
  // first; returns the stored kernel when its NodeDef equals `ndef`, else
  // `made`.
  std::shared_ptr<OpKernel> Insert(const std::string& device,
                                   const NodeDef& ndef,
                                   std::shared_ptr<OpKernel> made);

  mutable absl::Mutex mu_;
  // (device name, node name) -> shared kernel; ordered for determinism.
  std::map<std::pair<std::string, std::string>, Entry> kernels_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_OP_SEGMENT_H_
