#include "runtime/common/device_mgr.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/device_name_utils.h"

namespace stepflow {
namespace {

// True if every component `pattern` sets equals the device's. Type
// comparison ignores case ("/cpu:0" and "/device:CPU:0" are the same).
bool Matches(const DeviceNameUtils::ParsedName& pattern,
             const DeviceNameUtils::ParsedName& device) {
  if (pattern.has_job && (!device.has_job || pattern.job != device.job)) {
    return false;
  }
  if (pattern.has_replica &&
      (!device.has_replica || pattern.replica != device.replica)) {
    return false;
  }
  if (pattern.has_task && (!device.has_task || pattern.task != device.task)) {
    return false;
  }
  if (pattern.has_type &&
      (!device.has_type ||
       !absl::EqualsIgnoreCase(pattern.type, device.type))) {
    return false;
  }
  if (pattern.has_id && (!device.has_id || pattern.id != device.id)) {
    return false;
  }
  return true;
}

}  // namespace

DeviceMgr::DeviceMgr(std::vector<std::unique_ptr<Device>> devices)
    : devices_(std::move(devices)) {
  for (const auto& d : devices_) {
    sorted_.push_back(d.get());
    by_name_.emplace(d->name(), d.get());
  }
  std::stable_sort(
      sorted_.begin(), sorted_.end(),
      [](const Device* a, const Device* b) { return a->name() < b->name(); });
}

DeviceMgr::~DeviceMgr() = default;

std::vector<Device*> DeviceMgr::ListDevices() const { return sorted_; }

void DeviceMgr::ListDeviceAttributes(std::vector<DeviceAttributes>* out) const {
  out->clear();
  out->reserve(sorted_.size());
  for (const Device* d : sorted_) out->push_back(d->attributes());
}

std::string DeviceMgr::DeviceNamesString() const {
  std::vector<std::string> names;
  names.reserve(sorted_.size());
  for (const Device* d : sorted_) names.push_back(d->name());
  return absl::StrJoin(names, ", ");
}

absl::Status DeviceMgr::LookupDevice(absl::string_view name,
                                     Device** device) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) {
    *device = it->second;
    return absl::OkStatus();
  }
  DeviceNameUtils::ParsedName parsed;
  std::vector<Device*> matches;
  // A usable name pins the device type and id; without them a name like
  // "/job:localhost" would be a pattern, not a device.
  if (!name.empty() && DeviceNameUtils::ParseFullName(name, &parsed) &&
      parsed.has_type && parsed.has_id) {
    for (Device* d : sorted_) {
      if (Matches(parsed, d->parsed_name())) matches.push_back(d);
    }
  }
  if (matches.size() == 1) {
    *device = matches[0];
    return absl::OkStatus();
  }
  if (matches.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "Unknown device: ", name, ", all devices: ", DeviceNamesString()));
  }
  std::vector<std::string> names;
  for (const Device* d : matches) names.push_back(d->name());
  return absl::InvalidArgumentError(
      absl::StrCat("Ambiguous device name ", name,
                   " matches several devices: ", absl::StrJoin(names, ", ")));
}

Device* DeviceMgr::ClientDevice() const {
  for (Device* d : sorted_) {
    const DeviceNameUtils::ParsedName& p = d->parsed_name();
    if (p.has_type && p.type == DEVICE_CPU && p.has_id && p.id == 0) return d;
  }
  return nullptr;
}

void DeviceMgr::ClearContainers(
    const std::vector<std::string>& containers) const {
  for (Device* d : sorted_) {
    ResourceMgr* rm = d->resource_manager();
    if (containers.empty()) {
      rm->Cleanup(rm->default_container()).IgnoreError();
    }
    for (const std::string& c : containers) rm->Cleanup(c).IgnoreError();
  }
}

}  // namespace stepflow
