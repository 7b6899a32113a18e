// CallableRegistry: the callables of a session that runs them as ordinary
// steps (TensorFlow's MakeCallable/RunCallable/ReleaseCallable on top of
// Run): handles counting up from 0, each remembering its CallableOptions.
// CallableSession: the Session base that forwards those three methods to a
// CallableRegistry (DirectSession and DistributedSession).
//
// Errors: Make rejects tensor_connection (Unimplemented); an unknown or
// released handle is InvalidArgument; RunCallable with the wrong number of
// feed tensors is InvalidArgument; otherwise RunCallable returns what
// `session->Run` returns.
//
// Thread-safety: thread-safe.
#ifndef STEPFLOW_RUNTIME_COMMON_CALLABLE_REGISTRY_H_
#define STEPFLOW_RUNTIME_COMMON_CALLABLE_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"

namespace stepflow {

class CallableRegistry {
 public:
  absl::Status Make(const CallableOptions& options,
                    Session::CallableHandle* handle);
  // Runs the callable through `session->Run` with its feeds, fetches,
  // targets and run options.
  absl::Status Run(Session* session, Session::CallableHandle handle,
                   const std::vector<Tensor>& feed_tensors,
                   std::vector<Tensor>* fetch_tensors,
                   RunMetadata* run_metadata);
  absl::Status Release(Session::CallableHandle handle);

  // A callable's options, unpacked once at Make so a Run copies no proto.
  struct Callable {
    RunOptions run_options;
    std::vector<std::string> feeds;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
  };
  // The callable behind `handle`, checked to take `num_feeds` feeds (for a
  // caller that runs it some other way than Session::Run: the
  // distributed master runs it as a RunStep).
  absl::Status Find(Session::CallableHandle handle, size_t num_feeds,
                    std::shared_ptr<const Callable>* out);

 private:
  absl::Mutex mu_;
  Session::CallableHandle next_handle_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<Session::CallableHandle, std::shared_ptr<const Callable>> callables_
      ABSL_GUARDED_BY(mu_);
};

// A Session whose callables are ordinary Runs of the session itself.
// MakeCallable and RunCallable fail with CheckNotClosed()'s error once the
// session is closed; ReleaseCallable works after Close too (it only drops
// the handle).
class CallableSession : public Session {
 public:
  absl::Status MakeCallable(const CallableOptions& options,
                            CallableHandle* handle) final;
  absl::Status RunCallable(CallableHandle handle,
                           const std::vector<Tensor>& feed_tensors,
                           std::vector<Tensor>* fetch_tensors,
                           RunMetadata* run_metadata) final;
  absl::Status ReleaseCallable(CallableHandle handle) final;

 protected:
  // OK while the session is open; after Close, Cancelled("Session has been
  // closed.").
  virtual absl::Status CheckNotClosed() const = 0;

 private:
  CallableRegistry callables_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_CALLABLE_REGISTRY_H_
