#include "runtime/distributed/server_lib.h"

#include <map>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {
namespace {

struct Registry {
  absl::Mutex mu;
  std::map<std::string, ServerFactory> factories ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

bool RegisterServerFactory(const std::string& protocol, ServerFactory factory) {
  Registry& r = GetRegistry();
  absl::MutexLock l(&r.mu);
  r.factories[protocol] = std::move(factory);
  return true;
}

absl::Status NewServer(const ServerDef& server_def,
                       std::unique_ptr<ServerInterface>* out) {
  const std::string protocol =
      server_def.protocol().empty() ? "grpc" : server_def.protocol();
  ServerFactory factory;
  std::string known;
  {
    Registry& r = GetRegistry();
    absl::MutexLock l(&r.mu);
    auto it = r.factories.find(protocol);
    if (it != r.factories.end()) factory = it->second;
    for (const auto& entry : r.factories) {
      absl::StrAppend(&known, known.empty() ? "" : ", ", entry.first);
    }
  }
  if (!factory) {
    return absl::NotFoundError(
        absl::StrCat("No server factory registered for protocol '", protocol,
                     "'. The available server factories are: [ ", known, " ]"));
  }
  return factory(server_def, out);
}

}  // namespace stepflow
