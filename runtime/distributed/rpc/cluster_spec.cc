#include "runtime/distributed/rpc/cluster_spec.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/device_name_utils.h"

namespace stepflow {

absl::Status SplitHostPort(absl::string_view address, std::string* host,
                           int* port) {
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), port) || *port < 0 ||
      *port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", address, "' is not host:port"));
  }
  *host = std::string(address.substr(0, colon));
  return absl::OkStatus();
}

absl::Status ClusterSpec::AddTask(absl::string_view job, int index,
                                  absl::string_view address) {
  DeviceNameUtils::ParsedName parsed;
  if (job.empty() ||
      !DeviceNameUtils::ParseFullName(absl::StrCat("/job:", job), &parsed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", job, "' is not a job name (want [a-z][a-z0-9_]*)"));
  }
  if (index < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", job, ": task index ", index, " is negative"));
  }
  std::string host;
  int port = 0;
  absl::Status s = SplitHostPort(address, &host, &port);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", job, " task ", index, ": address ", s.message()));
  }
  auto [it, inserted] =
      jobs_[std::string(job)].emplace(index, std::string(address));
  if (!inserted) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", job, " lists task ", index, " twice"));
  }
  return absl::OkStatus();
}

absl::Status ClusterSpec::FindTask(const std::string& job, int index,
                                   std::string* address) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, tasks] : jobs_) names.push_back(name);
    return absl::InvalidArgumentError(
        absl::StrCat("task type '", job, "' is not a job of the cluster (",
                     names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  auto task = it->second.find(index);
  if (task == it->second.end()) {
    std::vector<int> indices;
    for (const auto& [i, a] : it->second) indices.push_back(i);
    return absl::InvalidArgumentError(
        absl::StrCat("task index ", index, " is out of range: job ", job,
                     " has tasks {", absl::StrJoin(indices, ", "), "}"));
  }
  *address = task->second;
  return absl::OkStatus();
}

std::map<std::string, std::string> ClusterSpec::TaskAddresses() const {
  std::map<std::string, std::string> out;
  for (const auto& [job, tasks] : jobs_) {
    for (const auto& [index, address] : tasks) {
      out[TaskName(job, index)] = address;
    }
  }
  return out;
}

std::string ClusterSpec::TaskName(absl::string_view job, int index) {
  return absl::StrCat("/job:", job, "/replica:0/task:", index);
}

absl::Status ParseClusterFlag(absl::string_view spec, ClusterSpec* out) {
  *out = ClusterSpec();
  for (absl::string_view job_spec :
       absl::StrSplit(spec, ';', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> job_addresses =
        absl::StrSplit(job_spec, absl::MaxSplits('=', 1));
    // No '=' leaves the second half empty.
    if (job_addresses.first.empty() || job_addresses.second.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster spec '", spec,
          "' must look like worker=host:port,host:port;ps=host:port"));
    }
    if (out->jobs().count(std::string(job_addresses.first)) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster spec '", spec, "' lists job ",
                       job_addresses.first, " twice"));
    }
    int index = 0;
    for (absl::string_view a :
         absl::StrSplit(job_addresses.second, ',', absl::SkipEmpty())) {
      absl::Status s = out->AddTask(job_addresses.first, index++, a);
      if (!s.ok()) return s;
    }
    if (index == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster spec '", spec, "': job ", job_addresses.first,
                       " lists no address"));
    }
  }
  if (out->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster spec '", spec, "' lists no job"));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
