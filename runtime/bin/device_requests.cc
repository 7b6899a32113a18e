#include "runtime/bin/device_requests.h"

#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace {

absl::Status BadRequest(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "device request '", spec, "': ", why,
      " (want PREFIX=DEVICE, e.g. w=/job:worker/replica:0/task:1)"));
}

// True if `name` is `prefix` or lies in the name scope `prefix`.
bool Covers(const std::string& prefix, const std::string& name) {
  return name == prefix ||
         (name.size() > prefix.size() && absl::StartsWith(name, prefix) &&
          name[prefix.size()] == '/');
}

}  // namespace

absl::Status ParseDeviceRequest(absl::string_view spec, DeviceRequest* out) {
  const size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) return BadRequest(spec, "no '='");
  absl::string_view prefix = spec.substr(0, eq);
  absl::string_view device = spec.substr(eq + 1);
  while (absl::EndsWith(prefix, "/")) prefix.remove_suffix(1);
  if (prefix.empty()) return BadRequest(spec, "empty node name prefix");
  if (device.empty()) return BadRequest(spec, "empty device");
  if (!ValidateNodeName(prefix).ok()) {
    return BadRequest(spec, absl::StrCat("'", prefix, "' is not a node name"));
  }
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(device, &parsed)) {
    return BadRequest(spec,
                      absl::StrCat("'", device, "' is not a device name"));
  }
  out->prefix = std::string(prefix);
  out->device = DeviceNameUtils::ParsedNameToString(parsed);
  return absl::OkStatus();
}

absl::Status ApplyDeviceRequests(const std::vector<DeviceRequest>& requests,
                                 GraphDef* graph) {
  // prefix -> device; ordered so that error messages are deterministic.
  std::map<std::string, std::string> by_prefix;
  for (const DeviceRequest& r : requests) {
    if (!by_prefix.emplace(r.prefix, r.device).second) {
      return BadRequest(
          absl::StrCat(r.prefix, "=", r.device),
          absl::StrCat("prefix '", r.prefix, "' is requested more than once"));
    }
  }
  // Node index -> chosen request, computed before anything is written.
  std::map<int, const std::pair<const std::string, std::string>*> chosen;
  std::map<std::string, int> matches;
  for (int i = 0; i < graph->node_size(); ++i) {
    const std::string& name = graph->node(i).name();
    const std::pair<const std::string, std::string>* best = nullptr;
    for (const auto& entry : by_prefix) {
      if (!Covers(entry.first, name)) continue;
      ++matches[entry.first];
      if (best == nullptr || entry.first.size() > best->first.size()) {
        best = &entry;
      }
    }
    if (best != nullptr) chosen[i] = best;
  }
  for (const auto& [prefix, device] : by_prefix) {
    if (matches[prefix] == 0) {
      return BadRequest(absl::StrCat(prefix, "=", device),
                        absl::StrCat("no node is named '", prefix,
                                     "' or starts with '", prefix, "/'"));
    }
  }
  for (const auto& [index, request] : chosen) {
    graph->mutable_node(index)->set_device(request->second);
  }
  return absl::OkStatus();
}

}  // namespace stepflow
