#include "runtime/distributed/rpc/tf_config.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace stepflow {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG: ", what));
}

// A JSON number that is a whole int >= 0, or a string of digits (TensorFlow
// converts the index with int()).
bool ToTaskIndex(const Value& v, int* index) {
  if (v.kind_case() == Value::kNumberValue) {
    const double d = v.number_value();
    if (d < 0 || d > 1e9 || std::floor(d) != d) return false;
    *index = static_cast<int>(d);
    return true;
  }
  if (v.kind_case() == Value::kStringValue) {
    return absl::SimpleAtoi(v.string_value(), index) && *index >= 0;
  }
  return false;
}

std::vector<std::string> SortedKeys(
    const google::protobuf::Map<std::string, Value>& fields) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : fields) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

absl::Status ParseJob(const std::string& job, const Value& tasks,
                      ClusterSpec* cluster) {
  if (tasks.kind_case() == Value::kListValue) {
    const auto& list = tasks.list_value().values();
    if (list.empty()) {
      return Invalid(absl::StrCat("job ", job, " lists no task"));
    }
    for (int i = 0; i < list.size(); ++i) {
      if (list[i].kind_case() != Value::kStringValue) {
        return Invalid(absl::StrCat("job ", job, " task ", i,
                                    ": the address is not a string"));
      }
      absl::Status s = cluster->AddTask(job, i, list[i].string_value());
      if (!s.ok()) return Invalid(s.message());
    }
    return absl::OkStatus();
  }
  if (tasks.kind_case() == Value::kStructValue) {
    const auto& fields = tasks.struct_value().fields();
    for (const std::string& key : SortedKeys(fields)) {
      const Value& address = fields.at(key);
      int index = 0;
      if (!absl::SimpleAtoi(key, &index) || index < 0) {
        return Invalid(
            absl::StrCat("job ", job, ": '", key, "' is not a task index"));
      }
      if (address.kind_case() != Value::kStringValue) {
        return Invalid(absl::StrCat("job ", job, " task ", key,
                                    ": the address is not a string"));
      }
      absl::Status s = cluster->AddTask(job, index, address.string_value());
      if (!s.ok()) return Invalid(s.message());
    }
    if (tasks.struct_value().fields().empty()) {
      return Invalid(absl::StrCat("job ", job, " lists no task"));
    }
    return absl::OkStatus();
  }
  return Invalid(
      absl::StrCat("job ", job,
                   " must be a list of \"host:port\" (or an object from "
                   "task index to \"host:port\")"));
}

}  // namespace

absl::Status ParseTfConfig(absl::string_view json, TfConfig* out) {
  *out = TfConfig();
  Struct root;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &root);
  if (!parsed.ok()) {
    // The parser's message quotes the text around the fault over several
    // lines: one line here.
    const std::string why(parsed.message());
    return Invalid(absl::StrCat(
        "not a JSON object: ",
        absl::StrJoin(
            absl::StrSplit(why, absl::ByAnyChar(" \n\t"), absl::SkipEmpty()),
            " ")));
  }
  const auto& fields = root.fields();
  if (auto it = fields.find("cluster"); it != fields.end()) {
    if (it->second.kind_case() != Value::kStructValue) {
      return Invalid("\"cluster\" must be an object from job name to tasks");
    }
    // In job order, so that the first fault reported does not depend on
    // the order of the parsed map.
    const auto& jobs = it->second.struct_value().fields();
    for (const std::string& job : SortedKeys(jobs)) {
      absl::Status s = ParseJob(job, jobs.at(job), &out->cluster);
      if (!s.ok()) return s;
    }
  }
  if (auto it = fields.find("task"); it != fields.end()) {
    if (it->second.kind_case() != Value::kStructValue) {
      return Invalid(
          "\"task\" must be an object like {\"type\": \"worker\", "
          "\"index\": 0}");
    }
    const auto& task = it->second.struct_value().fields();
    if (auto type = task.find("type"); type != task.end()) {
      if (type->second.kind_case() != Value::kStringValue) {
        return Invalid("\"task.type\" must be a string (a job name)");
      }
      out->has_task_type = true;
      out->task_type = type->second.string_value();
    }
    if (auto index = task.find("index"); index != task.end()) {
      if (!ToTaskIndex(index->second, &out->task_index)) {
        return Invalid("\"task.index\" must be an integer >= 0");
      }
      out->has_task_index = true;
    }
  }
  return absl::OkStatus();
}

absl::Status ResolveServerTask(const ServerTaskFlags& flags,
                               const char* tf_config, ClusterSpec* cluster,
                               std::string* job, int* task_index) {
  TfConfig config;
  if (tf_config != nullptr && *tf_config != '\0') {
    absl::Status s = ParseTfConfig(tf_config, &config);
    if (!s.ok()) return s;
  }
  if (!flags.cluster.empty()) {
    absl::Status s = ParseClusterFlag(flags.cluster, cluster);
    if (!s.ok()) return s;
  } else if (!config.cluster.empty()) {
    *cluster = config.cluster;
  } else {
    return absl::InvalidArgumentError(
        "no cluster: give --cluster=worker=host:port,... or a TF_CONFIG "
        "with a \"cluster\"");
  }
  *job = !flags.job.empty()     ? flags.job
         : config.has_task_type ? config.task_type
                                : "worker";
  if (flags.task < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("task index ", flags.task, " is negative"));
  }
  *task_index = flags.task >= 0         ? flags.task
                : config.has_task_index ? config.task_index
                                        : 0;
  std::string address;
  return cluster->FindTask(*job, *task_index, &address);
}

}  // namespace stepflow
