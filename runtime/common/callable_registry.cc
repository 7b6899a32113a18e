#include "runtime/common/callable_registry.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

absl::Status NoSuchHandle(Session::CallableHandle handle) {
  return absl::InvalidArgumentError(
      absl::StrCat("No such callable handle: ", handle,
                   " (never made, or already released)"));
}

}  // namespace

absl::Status CallableRegistry::Make(const CallableOptions& options,
                                    Session::CallableHandle* handle) {
  if (options.tensor_connection_size() > 0) {
    return absl::UnimplementedError(
        "CallableOptions.tensor_connection is not supported");
  }
  auto callable = std::make_shared<Callable>();
  callable->run_options = options.run_options();
  callable->feeds.assign(options.feed().begin(), options.feed().end());
  callable->fetches.assign(options.fetch().begin(), options.fetch().end());
  callable->targets.assign(options.target().begin(), options.target().end());
  absl::MutexLock l(&mu_);
  *handle = next_handle_++;
  callables_[*handle] = std::move(callable);
  return absl::OkStatus();
}

absl::Status CallableRegistry::Run(Session* session,
                                   Session::CallableHandle handle,
                                   const std::vector<Tensor>& feed_tensors,
                                   std::vector<Tensor>* fetch_tensors,
                                   RunMetadata* run_metadata) {
  std::shared_ptr<const Callable> callable;
  absl::Status found = Find(handle, feed_tensors.size(), &callable);
  if (!found.ok()) return found;
  Session::FeedList feeds;
  feeds.reserve(feed_tensors.size());
  for (size_t i = 0; i < feed_tensors.size(); ++i) {
    feeds.emplace_back(callable->feeds[i], feed_tensors[i]);
  }
  return session->Run(callable->run_options, feeds, callable->fetches,
                      callable->targets, fetch_tensors, run_metadata);
}

absl::Status CallableRegistry::Find(Session::CallableHandle handle,
                                    size_t num_feeds,
                                    std::shared_ptr<const Callable>* out) {
  {
    absl::MutexLock l(&mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) return NoSuchHandle(handle);
    *out = it->second;
  }
  if (num_feeds != (*out)->feeds.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Callable ", handle, " expects ", (*out)->feeds.size(),
                     " feed tensors but got ", num_feeds));
  }
  return absl::OkStatus();
}

absl::Status CallableRegistry::Release(Session::CallableHandle handle) {
  absl::MutexLock l(&mu_);
  if (callables_.erase(handle) == 0) return NoSuchHandle(handle);
  return absl::OkStatus();
}

absl::Status CallableSession::MakeCallable(const CallableOptions& options,
                                           CallableHandle* handle) {
  absl::Status open = CheckNotClosed();
  if (!open.ok()) return open;
  return callables_.Make(options, handle);
}

absl::Status CallableSession::RunCallable(
    CallableHandle handle, const std::vector<Tensor>& feed_tensors,
    std::vector<Tensor>* fetch_tensors, RunMetadata* run_metadata) {
  absl::Status open = CheckNotClosed();
  if (!open.ok()) return open;
  return callables_.Run(this, handle, feed_tensors, fetch_tensors,
                        run_metadata);
}

absl::Status CallableSession::ReleaseCallable(CallableHandle handle) {
  return callables_.Release(handle);
}

}  // namespace stepflow
