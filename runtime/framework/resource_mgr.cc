#include "runtime/framework/resource_mgr.h"

#include <set>

namespace stepflow {
namespace {

std::string DescribeKey(const std::string& container, const char* type,
                        const std::string& name) {
  return absl::StrCat("resource ", container, "/", name, " (type ", type, ")");
}

}  // namespace

ResourceMgr::~ResourceMgr() { Clear(); }

absl::Status ResourceMgr::DoCreate(const std::string& container,
                                   const char* type, const std::string& name,
                                   ResourceBase* resource) {
  {
    absl::MutexLock l(&mu_);
    auto inserted = resources_.emplace(Key(container, type, name), resource);
    if (inserted.second) return absl::OkStatus();
  }
  resource->Unref();
  return absl::AlreadyExistsError(
      absl::StrCat(DescribeKey(container, type, name), " already exists"));
}

absl::Status ResourceMgr::DoLookup(const std::string& container,
                                   const char* type, const std::string& name,
                                   ResourceBase** out) const {
  absl::MutexLock l(&mu_);
  auto it = resources_.find(Key(container, type, name));
  if (it == resources_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "Container ", container, " does not exist or has no ",
        DescribeKey(container, type, name),
        ". This could mean that the variable was uninitialized or the "
        "resource was deleted."));
  }
  it->second->Ref();
  *out = it->second;
  return absl::OkStatus();
}

absl::Status ResourceMgr::DoDelete(const std::string& container,
                                   const char* type, const std::string& name) {
  ResourceBase* victim = nullptr;
  {
    absl::MutexLock l(&mu_);
    auto it = resources_.find(Key(container, type, name));
    if (it == resources_.end()) {
      return absl::NotFoundError(
          absl::StrCat(DescribeKey(container, type, name), " does not exist"));
    }
    victim = it->second;
    resources_.erase(it);
  }
  victim->Unref();  // Outside the lock: destructors may call back in.
  return absl::OkStatus();
}

absl::Status ResourceMgr::Cleanup(const std::string& container) {
  std::vector<ResourceBase*> victims;
  {
    absl::MutexLock l(&mu_);
    auto it = resources_.lower_bound(Key(container, "", ""));
    while (it != resources_.end() && std::get<0>(it->first) == container) {
      victims.push_back(it->second);
      it = resources_.erase(it);
    }
  }
  for (ResourceBase* r : victims) r->Unref();
  return absl::OkStatus();
}

void ResourceMgr::Clear() {
  std::map<Key, ResourceBase*> victims;
  {
    absl::MutexLock l(&mu_);
    victims.swap(resources_);
  }
  for (auto& [key, r] : victims) r->Unref();
}

size_t ResourceMgr::NumResources() const {
  absl::MutexLock l(&mu_);
  return resources_.size();
}

std::vector<std::string> ResourceMgr::Containers() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [key, r] : resources_) {
    if (out.empty() || out.back() != std::get<0>(key)) {
      out.push_back(std::get<0>(key));
    }
  }
  return out;
}

}  // namespace stepflow
