// Rendezvous: a per-step table where a producer Sends a tensor under a key
// and a consumer Recvs it, in either order. Cross-device edges become
// _Send/_Recv pairs that meet here.
//
// Key: <src_device>;<src_incarnation as 16 hex
// digits>;<dst_device>;<name>;<frame_id>:<iter_id>
//
// Semantics every implementation keeps:
//  * Send never blocks; Recv may be called before or after Send.
//  * Values under one key are delivered FIFO.
//  * StartAbort(status) is sticky: pending Recvs complete with `status`,
//    later Send/Recv fail with it.
//  * A Recv whose Args carry a CancellationManager completes with Cancelled
//    when that manager is cancelled before the value arrives.
//
// Thread-safety: all methods are thread-safe. Callbacks run outside locks,
// possibly inline in Send/RecvAsync/StartAbort.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_RENDEZVOUS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/node_def.pb.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/refcount.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// Position of a value inside nested loop frames. The root frame is 0:0.
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
  bool operator==(const FrameAndIter& o) const {
    return frame_id == o.frame_id && iter_id == o.iter_id;
  }
};

class Rendezvous : public RefCounted {
 public:
  struct Args {
    CancellationManager* cancellation_manager = nullptr;  // May be null.
    // Whether the value lives in host memory on the sending/receiving side.
    bool on_host = true;
  };

  struct ParsedKey {
    std::string src_device;
    DeviceNameUtils::ParsedName src;
    uint64_t src_incarnation = 0;
    std::string dst_device;
    DeviceNameUtils::ParsedName dst;
    std::string edge_name;
    FrameAndIter frame_iter;
    std::string full_key;  // The canonical text form.
  };

  static std::string CreateKey(absl::string_view src_device,
                               uint64_t src_incarnation,
                               absl::string_view dst_device,
                               absl::string_view name,
                               const FrameAndIter& frame_iter);
  // InvalidArgument naming the key unless it has 5 ';'-separated parts,
  // valid device names, a hex incarnation, a non-empty name and a
  // "<frame>:<iter>" suffix.
  static absl::Status ParseKey(absl::string_view key, ParsedKey* out);

  using DoneCallback = std::function<void(
      const absl::Status& status, const Args& send_args, const Args& recv_args,
      const Tensor& val, bool is_dead)>;

  virtual absl::Status Send(const ParsedKey& key, const Args& args,
                            const Tensor& val, bool is_dead) = 0;
  virtual void RecvAsync(const ParsedKey& key, const Args& args,
                         DoneCallback done) = 0;
  virtual void StartAbort(const absl::Status& status) = 0;

 protected:
  ~Rendezvous() override = default;
};

// The rendezvous key of one _Send/_Recv (or _HostSend/_HostRecv) node, from
// the attrs subgraph rewriting and partitioning give it: send_device,
// send_device_incarnation, recv_device and tensor_name. Every user of such
// a key (the transfer kernels, CPU and GPU, and whatever sends on a node's
// behalf) reads it here, so they all agree on it.
//
// Errors name the node (AttachDef): a missing attr is NotFound, one of the
// wrong kind InvalidArgument, and so is a key ParseKey rejects.
// Immutable after FromNodeDef; thread-safe.
class SendRecvKey {
 public:
  // Reads `def`'s attrs and parses the root frame's key (0:0), which Get
  // then returns without parsing again.
  static absl::Status FromNodeDef(const NodeDef& def, SendRecvKey* key);

  // The parsed key of the value for `frame_iter` (each loop iteration has
  // its own key).
  absl::Status Get(const FrameAndIter& frame_iter,
                   Rendezvous::ParsedKey* key) const;

  const std::string& send_device() const { return send_device_; }
  const std::string& recv_device() const { return recv_device_; }
  const std::string& tensor_name() const { return tensor_name_; }
  uint64_t send_device_incarnation() const { return incarnation_; }

 private:
  absl::Status Parse(const FrameAndIter& frame_iter,
                     Rendezvous::ParsedKey* key) const;

  std::string node_name_;
  std::string send_device_;
  std::string recv_device_;
  std::string tensor_name_;
  uint64_t incarnation_ = 0;
  Rendezvous::ParsedKey root_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_RENDEZVOUS_H_
