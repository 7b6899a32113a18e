#include "runtime/framework/device_name_utils.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace stepflow {
namespace {

// Non-negative decimal int without sign or spaces.
bool ParseNonNegInt(absl::string_view s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(s, out);
}

// [a-z][a-z0-9_]*  (TensorFlow's job-name rule).
bool IsJobName(absl::string_view s) {
  if (s.empty() || !absl::ascii_islower(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!absl::ascii_islower(u) && !absl::ascii_isdigit(u) && c != '_') {
      return false;
    }
  }
  return true;
}

// [A-Za-z][A-Za-z0-9_]*
bool IsDeviceType(absl::string_view s) {
  if (s.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return false;
    }
  }
  return true;
}

// Parses "<int>" or "*" (unset) into has/value.
bool ParseIdOrAny(absl::string_view s, bool* has, int* value) {
  if (s == "*") {
    *has = false;
    *value = 0;
    return true;
  }
  if (!ParseNonNegInt(s, value)) return false;
  *has = true;
  return true;
}

bool ParseComponent(absl::string_view comp, DeviceNameUtils::ParsedName* p,
                    bool* seen_job, bool* seen_replica, bool* seen_task,
                    bool* seen_device) {
  if (absl::ConsumePrefix(&comp, "job:")) {
    if (*seen_job) return false;
    *seen_job = true;
    if (comp == "*") return true;
    if (!IsJobName(comp)) return false;
    p->has_job = true;
    p->job = std::string(comp);
    return true;
  }
  if (absl::ConsumePrefix(&comp, "replica:")) {
    if (*seen_replica) return false;
    *seen_replica = true;
    return ParseIdOrAny(comp, &p->has_replica, &p->replica);
  }
  if (absl::ConsumePrefix(&comp, "task:")) {
    if (*seen_task) return false;
    *seen_task = true;
    return ParseIdOrAny(comp, &p->has_task, &p->task);
  }
  if (*seen_device) return false;
  *seen_device = true;
  if (absl::ConsumePrefix(&comp, "device:")) {
    // "<TYPE>", "<TYPE>:<id>", "<TYPE>:*", "*".
    std::vector<absl::string_view> parts = absl::StrSplit(comp, ':');
    if (parts.size() > 2) return false;
    if (parts[0] == "*") {
      p->has_type = false;
    } else {
      if (!IsDeviceType(parts[0])) return false;
      p->has_type = true;
      p->type = std::string(parts[0]);
    }
    if (parts.size() == 2) return ParseIdOrAny(parts[1], &p->has_id, &p->id);
    return true;
  }
  // Legacy short forms: "cpu:0", "CPU:0", "gpu:1", "GPU:*".
  for (const char* legacy : {"cpu", "gpu", "CPU", "GPU"}) {
    absl::string_view rest = comp;
    if (absl::ConsumePrefix(&rest, legacy) && absl::ConsumePrefix(&rest, ":")) {
      p->has_type = true;
      p->type = absl::AsciiStrToUpper(legacy);
      return ParseIdOrAny(rest, &p->has_id, &p->id);
    }
  }
  return false;
}

}  // namespace

bool DeviceNameUtils::ParsedName::operator==(const ParsedName& o) const {
  return has_job == o.has_job && (!has_job || job == o.job) &&
         has_replica == o.has_replica &&
         (!has_replica || replica == o.replica) && has_task == o.has_task &&
         (!has_task || task == o.task) && has_type == o.has_type &&
         (!has_type || type == o.type) && has_id == o.has_id &&
         (!has_id || id == o.id);
}

bool DeviceNameUtils::ParseFullName(absl::string_view fullname,
                                    ParsedName* parsed) {
  ParsedName p;
  if (fullname.empty()) {
    *parsed = p;
    return true;
  }
  if (fullname[0] != '/') return false;
  fullname.remove_prefix(1);
  if (fullname.empty()) {  // "/" alone.
    *parsed = p;
    return true;
  }
  bool seen_job = false, seen_replica = false, seen_task = false,
       seen_device = false;
  for (absl::string_view comp : absl::StrSplit(fullname, '/')) {
    if (comp.empty()) return false;
    if (!ParseComponent(comp, &p, &seen_job, &seen_replica, &seen_task,
                        &seen_device)) {
      return false;
    }
  }
  *parsed = p;
  return true;
}

std::string DeviceNameUtils::ParsedNameToString(const ParsedName& pn) {
  std::string out;
  if (pn.has_job) absl::StrAppend(&out, "/job:", pn.job);
  if (pn.has_replica) absl::StrAppend(&out, "/replica:", pn.replica);
  if (pn.has_task) absl::StrAppend(&out, "/task:", pn.task);
  if (pn.has_type) {
    absl::StrAppend(&out, "/device:", pn.type, ":");
    if (pn.has_id) {
      absl::StrAppend(&out, pn.id);
    } else {
      out.append("*");
    }
  } else if (pn.has_id) {
    // "/device:*:<id>" parses to an id without a type; keep it.
    absl::StrAppend(&out, "/device:*:", pn.id);
  }
  return out;
}

std::string DeviceNameUtils::FullName(absl::string_view job, int replica,
                                      int task, absl::string_view type,
                                      int id) {
  return absl::StrCat("/job:", job, "/replica:", replica, "/task:", task,
                      "/device:", type, ":", id);
}

bool DeviceNameUtils::IsFullySpecified(const ParsedName& pn) {
  return pn.has_job && pn.has_replica && pn.has_task && pn.has_type &&
         pn.has_id;
}

bool DeviceNameUtils::IsSpecification(const ParsedName& less_specific,
                                      const ParsedName& more_specific) {
  const ParsedName& l = less_specific;
  const ParsedName& m = more_specific;
  if (l.has_job && (!m.has_job || l.job != m.job)) return false;
  if (l.has_replica && (!m.has_replica || l.replica != m.replica)) return false;
  if (l.has_task && (!m.has_task || l.task != m.task)) return false;
  if (l.has_type && (!m.has_type || l.type != m.type)) return false;
  if (l.has_id && (!m.has_id || l.id != m.id)) return false;
  return true;
}

bool DeviceNameUtils::IsCompleteSpecification(const ParsedName& pattern,
                                              const ParsedName& name) {
  return IsFullySpecified(name) && IsSpecification(pattern, name);
}

absl::Status DeviceNameUtils::MergeDevNames(ParsedName* target,
                                            const ParsedName& other,
                                            bool allow_soft_placement) {
  auto conflict = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot merge devices with incompatible ", what, ": '",
                     ParsedNameToString(*target), "' and '",
                     ParsedNameToString(other), "'"));
  };
  if (other.has_job) {
    if (target->has_job && target->job != other.job) return conflict("jobs");
    target->has_job = true;
    target->job = other.job;
  }
  if (other.has_replica) {
    if (target->has_replica && target->replica != other.replica) {
      return conflict("replicas");
    }
    target->has_replica = true;
    target->replica = other.replica;
  }
  if (other.has_task) {
    if (target->has_task && target->task != other.task) {
      return conflict("tasks");
    }
    target->has_task = true;
    target->task = other.task;
  }
  if (other.has_type) {
    if (target->has_type && target->type != other.type) {
      if (!allow_soft_placement) return conflict("types");
      return absl::OkStatus();  // Target keeps its own type and id.
    }
    target->has_type = true;
    target->type = other.type;
  }
  if (other.has_id) {
    if (target->has_id && target->id != other.id) {
      if (!allow_soft_placement) return conflict("ids");
      return absl::OkStatus();
    }
    target->has_id = true;
    target->id = other.id;
  }
  return absl::OkStatus();
}

bool DeviceNameUtils::IsSameAddressSpace(const ParsedName& a,
                                         const ParsedName& b) {
  return a.has_job && b.has_job && a.job == b.job && a.has_replica &&
         b.has_replica && a.replica == b.replica && a.has_task && b.has_task &&
         a.task == b.task;
}

bool DeviceNameUtils::IsSameAddressSpace(absl::string_view a,
                                         absl::string_view b) {
  ParsedName pa, pb;
  return ParseFullName(a, &pa) && ParseFullName(b, &pb) &&
         IsSameAddressSpace(pa, pb);
}

std::string DeviceNameUtils::TaskName(const ParsedName& pn) {
  return absl::StrCat("/job:", pn.job, "/replica:", pn.replica,
                      "/task:", pn.task);
}

std::string DeviceNameUtils::LocalName(absl::string_view type, int id) {
  return absl::StrCat("/device:", type, ":", id);
}

absl::Status DeviceNameUtils::CanonicalizeDeviceName(absl::string_view fullname,
                                                     absl::string_view basename,
                                                     std::string* canonical) {
  canonical->clear();
  ParsedName base;
  if (!ParseFullName(basename, &base)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not parse basename '", basename,
                     "' into a device specification"));
  }
  ParsedName parsed;
  if (!ParseFullName(fullname, &parsed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Could not parse '", fullname, "' into a device specification"));
  }
  if (!parsed.has_job && base.has_job) {
    parsed.has_job = true;
    parsed.job = base.job;
  }
  if (!parsed.has_replica && base.has_replica) {
    parsed.has_replica = true;
    parsed.replica = base.replica;
  }
  if (!parsed.has_task && base.has_task) {
    parsed.has_task = true;
    parsed.task = base.task;
  }
  *canonical = ParsedNameToString(parsed);
  return absl::OkStatus();
}

}  // namespace stepflow
