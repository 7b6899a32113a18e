#include "runtime/common/callable_registry.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

absl::Status NoSuchHandle(Session::CallableHandle handle) {
  return absl::InvalidArgumentError(absl::StrCat(
      "No such callable handle: ", handle, " (never made, or already released)"));
}

}  // namespace

absl::Status CallableRegistry::Make(const CallableOptions& options,
                                    Session::CallableHandle* handle) {
  if (options.tensor_connection_size() > 0) {
    return absl::UnimplementedError(
        "CallableOptions.tensor_connection is not supported");
  }
  absl::MutexLock l(&mu_);
  *handle = next_handle_++;
  callables_[*handle] = options;
  return absl::OkStatus();
}

absl::Status CallableRegistry::Run(Session* session,
                                   Session::CallableHandle handle,
                                   const std::vector<Tensor>& feed_tensors,
                                   std::vector<Tensor>* fetch_tensors,
                                   RunMetadata* run_metadata) {
  CallableOptions options;
  {
    absl::MutexLock l(&mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) return NoSuchHandle(handle);
    options = it->second;
  }
  if (static_cast<int>(feed_tensors.size()) != options.feed_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Callable ", handle, " expects ", options.feed_size(),
        " feed tensors but got ", feed_tensors.size()));
  }
  Session::FeedList feeds;
  for (int i = 0; i < options.feed_size(); ++i) {
    feeds.emplace_back(options.feed(i), feed_tensors[i]);
  }
  const std::vector<std::string> fetches(options.fetch().begin(),
                                         options.fetch().end());
  const std::vector<std::string> targets(options.target().begin(),
                                         options.target().end());
  return session->Run(options.run_options(), feeds, fetches, targets,
                      fetch_tensors, run_metadata);
}

absl::Status CallableRegistry::Release(Session::CallableHandle handle) {
  absl::MutexLock l(&mu_);
  if (callables_.erase(handle) == 0) return NoSuchHandle(handle);
  return absl::OkStatus();
}

}  // namespace stepflow
