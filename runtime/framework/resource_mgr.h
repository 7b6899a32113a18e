// ResourceMgr: per-device store of stateful resources (variables, queues),
// keyed by (container, type, name). Containers group resources so that
// Session::Reset(containers) can drop them together; per-step containers
// ("__per_step_<id>") hold resources that die with a step.
//
// Ownership: the manager holds one reference to each resource; Lookup
// returns a new reference the caller must Unref.
// Thread-safety: all methods are thread-safe. Iteration order (for
// debugging and cleanup) is sorted by (container, type, name).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_RESOURCE_MGR_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_RESOURCE_MGR_H_

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/refcount.h"

namespace stepflow {

class ResourceBase : public RefCounted {
 public:
  virtual std::string DebugString() const = 0;
};

class ResourceMgr {
 public:
  explicit ResourceMgr(std::string default_container = "localhost")
      : default_container_(std::move(default_container)) {}
  ~ResourceMgr();

  const std::string& default_container() const { return default_container_; }

  // Takes ownership of the caller's reference to `resource`. AlreadyExists
  // (and `resource` is unreffed) if the key is taken.
  template <typename T>
  absl::Status Create(const std::string& container, const std::string& name,
                      T* resource) {
    return DoCreate(container, typeid(T).name(), name, resource);
  }

  // On success `*resource` holds a new reference. NotFound naming the
  // container and resource otherwise.
  template <typename T>
  absl::Status Lookup(const std::string& container, const std::string& name,
                      T** resource) const {
    ResourceBase* base = nullptr;
    absl::Status s = DoLookup(container, typeid(T).name(), name, &base);
    if (s.ok()) *resource = static_cast<T*>(base);
    return s;
  }

  // Looks up, or creates with `creator` (which returns one reference) if
  // absent; atomic with respect to other LookupOrCreate calls.
  template <typename T>
  absl::Status LookupOrCreate(const std::string& container,
                              const std::string& name, T** resource,
                              const std::function<absl::Status(T**)>& creator) {
    absl::MutexLock l(&create_mu_);
    absl::Status s = Lookup(container, name, resource);
    if (s.ok()) return s;
    T* made = nullptr;
    s = creator(&made);
    if (!s.ok()) return s;
    made->Ref();
    s = Create(container, name, made);
    if (!s.ok()) {
      made->Unref();
      return s;
    }
    *resource = made;
    return absl::OkStatus();
  }

  // NotFound if absent.
  template <typename T>
  absl::Status Delete(const std::string& container, const std::string& name) {
    return DoDelete(container, typeid(T).name(), name);
  }

  // Drops every resource in `container`; OK if it does not exist.
  absl::Status Cleanup(const std::string& container);
  // Drops everything.
  void Clear();

  // Number of live resources (for leak checks).
  size_t NumResources() const;
  std::vector<std::string> Containers() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  absl::Status DoCreate(const std::string& container, const char* type,
                        const std::string& name, ResourceBase* resource);
  absl::Status DoLookup(const std::string& container, const char* type,
                        const std::string& name, ResourceBase** out) const;
  absl::Status DoDelete(const std::string& container, const char* type,
                        const std::string& name);

  const std::string default_container_;
  absl::Mutex create_mu_;
  mutable absl::Mutex mu_;
  std::map<Key, ResourceBase*> resources_ ABSL_GUARDED_BY(mu_);
};

// Names a per-step container ("__per_step_<step_id>") and, when
// destroyed, runs `cleanup(name)` if anyone asked for the name: resources
// can only have been created under it then, so a step whose kernels never
// use the container costs no string and no cleanup.
// Thread-safety: name() may be called concurrently (by the step's kernels).
class ScopedStepContainer {
 public:
  ScopedStepContainer(int64_t step_id,
                      std::function<void(const std::string&)> cleanup)
      : step_id_(step_id), cleanup_(std::move(cleanup)) {}
  ~ScopedStepContainer() {
    if (cleanup_ && named_.load(std::memory_order_acquire)) cleanup_(name_);
  }
  ScopedStepContainer(const ScopedStepContainer&) = delete;
  ScopedStepContainer& operator=(const ScopedStepContainer&) = delete;

  const std::string& name() const {
    absl::call_once(name_once_, [this] {
      name_ = absl::StrCat("__per_step_", step_id_);
      named_.store(true, std::memory_order_release);
    });
    return name_;
  }

 private:
  const int64_t step_id_;
  const std::function<void(const std::string&)> cleanup_;
  mutable absl::once_flag name_once_;
  mutable std::string name_;  // Written once, under name_once_.
  mutable std::atomic<bool> named_{false};
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_RESOURCE_MGR_H_
