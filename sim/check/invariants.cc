#include "sim/check/invariants.h"

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow {
namespace {

std::string CodeName(absl::StatusCode code) {
  return absl::StatusCodeToString(code);
}

std::string CodeSet(const std::set<absl::StatusCode>& codes) {
  std::vector<std::string> names;
  for (absl::StatusCode c : codes) names.push_back(CodeName(c));
  return absl::StrCat("{", absl::StrJoin(names, ","), "}");
}

// Nodes the partitioner adds to a partition (not user nodes and not the
// feed/fetch nodes of pruning).
bool AddedByPartitioning(const NodeDef& n) {
  if (n.op() == "_Send" || n.op() == "_Recv") return true;
  if (absl::StartsWith(n.name(), "_cloop")) return true;
  // Graph::NewName: "<prefix>/_<counter>".
  const size_t slash = n.name().rfind("/_");
  if (slash == std::string::npos) return false;
  const std::string tail = n.name().substr(slash + 2);
  if (tail.empty()) return false;
  for (char c : tail) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ScalarValue(const Tensor& t, double* v) {
  if (t.NumElements() != 1) return false;
  if (t.dtype() == DT_FLOAT) {
    *v = t.flat<float>()(0);
    return true;
  }
  if (t.dtype() == DT_INT32) {
    *v = t.flat<int32_t>()(0);
    return true;
  }
  return false;
}

bool Close(double actual, double expected, double tolerance) {
  if (std::isnan(actual) || std::isnan(expected)) {
    return std::isnan(actual) && std::isnan(expected);
  }
  if (tolerance == 0) return actual == expected;
  if (std::isinf(expected)) return actual == expected;
  return std::fabs(actual - expected) <=
         tolerance * std::max(1.0, std::fabs(expected));
}

}  // namespace

std::vector<std::string> AllInvariantNames() {
  return {kInvariantValues,   kInvariantPruning, kInvariantSendRecv,
          kInvariantLeaks,    kInvariantStepIds, kInvariantErrorCodes,
          kInvariantRefcount, kInvariantClosed,  kInvariantLiveness};
}

InvariantChecker::InvariantChecker(std::vector<InvariantViolation>* out)
    : out_(out),
      allowed_codes_({absl::StatusCode::kOk, absl::StatusCode::kCancelled,
                      absl::StatusCode::kDeadlineExceeded,
                      absl::StatusCode::kInvalidArgument,
                      absl::StatusCode::kNotFound,
                      absl::StatusCode::kFailedPrecondition}) {}

void InvariantChecker::AllowErrorCode(absl::StatusCode code) {
  allowed_codes_.insert(code);
}

void InvariantChecker::Report(const std::string& invariant,
                              const std::string& detail) {
  out_->push_back(InvariantViolation{invariant, detail});
}

void InvariantChecker::CheckErrorCode(const std::string& where,
                                      const absl::Status& status) {
  ++checks_[kInvariantErrorCodes];
  if (allowed_codes_.count(status.code()) == 0) {
    Report(kInvariantErrorCodes,
           absl::StrCat(where, ": status ", status.ToString(),
                        " is not one of ", CodeSet(allowed_codes_)));
  }
}

void InvariantChecker::CheckStep(const std::string& where,
                                 const StepExpectation& expect,
                                 const absl::Status& status,
                                 const std::vector<Tensor>& outputs) {
  ++checks_[kInvariantValues];
  if (!status.ok()) {
    const absl::StatusCode code = status.code();
    const bool allowed =
        expect.error_codes.count(code) > 0 ||
        (code == absl::StatusCode::kDeadlineExceeded && expect.timeout_set) ||
        (code == absl::StatusCode::kCancelled && expect.closed_during_step);
    if (!allowed) {
      Report(kInvariantValues,
             absl::StrCat(where, ": unexpected status ", status.ToString(),
                          " (reference allows OK",
                          expect.must_fail ? "-never" : "", ", ",
                          CodeSet(expect.error_codes),
                          expect.timeout_set ? ", DEADLINE_EXCEEDED" : "",
                          expect.closed_during_step ? ", CANCELLED" : "", ")"));
    }
    return;
  }
  if (expect.must_fail) {
    Report(kInvariantValues,
           absl::StrCat(where,
                        ": step succeeded but the reference says it "
                        "must fail with one of ",
                        CodeSet(expect.error_codes)));
    return;
  }
  if (!expect.check_values) return;
  if (outputs.size() != expect.values.size()) {
    Report(kInvariantValues,
           absl::StrCat(where, ": ", outputs.size(), " outputs for ",
                        expect.values.size(), " expected values"));
    return;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    double v = 0;
    if (!ScalarValue(outputs[i], &v)) {
      Report(kInvariantValues, absl::StrCat(where, ": output ", i,
                                            " is not a float/int32 scalar: ",
                                            outputs[i].DebugString()));
      continue;
    }
    if (!Close(v, expect.values[i], expect.tolerance)) {
      Report(
          kInvariantValues,
          absl::StrCat(where, ": output ", i, " = ", v, ", reference ",
                       expect.values[i],
                       expect.tolerance > 0
                           ? absl::StrCat(" (tolerance ", expect.tolerance, ")")
                           : std::string()));
    }
  }
}

void InvariantChecker::CheckClosedSessionStep(const std::string& where,
                                              const absl::Status& status) {
  ++checks_[kInvariantClosed];
  if (!absl::IsCancelled(status)) {
    Report(kInvariantClosed,
           absl::StrCat(where, ": a step on a closed session returned ",
                        status.ToString(), " instead of CANCELLED"));
  }
}

void InvariantChecker::CheckPruning(const std::string& where,
                                    const std::set<std::string>& expected,
                                    const std::vector<GraphDef>& partitions,
                                    const std::set<std::string>& call_sites) {
  ++checks_[kInvariantPruning];
  std::set<std::string> actual;
  for (const GraphDef& g : partitions) {
    for (const NodeDef& n : g.node()) {
      if (AddedByPartitioning(n)) continue;
      const std::string outer = n.name().substr(0, n.name().find('/'));
      actual.insert(call_sites.count(outer) > 0 ? outer : n.name());
    }
  }
  if (actual == expected) return;
  std::vector<std::string> missing, extra;
  for (const std::string& n : expected) {
    if (actual.count(n) == 0) missing.push_back(n);
  }
  for (const std::string& n : actual) {
    if (expected.count(n) == 0) extra.push_back(n);
  }
  Report(kInvariantPruning,
         absl::StrCat(where, ": partitions lack {", absl::StrJoin(missing, ","),
                      "} and have extra {", absl::StrJoin(extra, ","), "}"));
}

void InvariantChecker::CheckLeaks(const std::string& where,
                                  const LeakSnapshot& s) {
  ++checks_[kInvariantLeaks];
  ++checks_[kInvariantSendRecv];
  if (s.pending_recvs != 0) {
    Report(kInvariantSendRecv, absl::StrCat(where, ": ", s.pending_recvs,
                                            " Recv(s) never completed"));
  }
  std::vector<std::string> leaks;
  if (s.live_rendezvous != 0) {
    leaks.push_back(absl::StrCat(s.live_rendezvous, " live rendezvous"));
  }
  if (s.leaked_rendezvous_entries != 0) {
    leaks.push_back(absl::StrCat(s.leaked_rendezvous_entries,
                                 " rendezvous entries left at destruction"));
  }
  if (!s.step_containers.empty()) {
    leaks.push_back(absl::StrCat("per-step containers {",
                                 absl::StrJoin(s.step_containers, ","), "}"));
  }
  if (s.cancellation_registrations != 0) {
    leaks.push_back(absl::StrCat(s.cancellation_registrations,
                                 " cancellation registrations"));
  }
  if (s.partial_runs != 0) {
    leaks.push_back(absl::StrCat(s.partial_runs, " partial runs"));
  }
  if (!leaks.empty()) {
    Report(kInvariantLeaks,
           absl::StrCat(where, ": ", absl::StrJoin(leaks, "; ")));
  }
}

void InvariantChecker::CheckRefcount(const std::string& where,
                                     int64_t expected_live,
                                     int64_t actual_live) {
  ++checks_[kInvariantRefcount];
  if (expected_live != actual_live) {
    Report(kInvariantRefcount,
           absl::StrCat(where, ": ", actual_live, " live graphs, model says ",
                        expected_live));
  }
}

void InvariantChecker::OnTraceEvent(const TraceEvent& e) {
  switch (e.kind) {
    case SIM_NOTE: {
      if (e.Field("event") != "new_step") return;
      ++checks_[kInvariantStepIds];
      if (!steps_seen_.emplace(e.task, e.Field("step")).second) {
        Report(kInvariantStepIds,
               absl::StrCat("session ", e.task, " reused step id ",
                            e.Field("step"), " (t=", e.time_nanos, ")"));
      }
      return;
    }
    case SIM_RENDEZVOUS_SEND:
    case SIM_RENDEZVOUS_RECV: {
      if (e.Field("status") != "OK") return;
      ++checks_[kInvariantSendRecv];
      const bool send = e.kind == SIM_RENDEZVOUS_SEND;
      auto& counts = send ? sends_ : recvs_;
      const int n = ++counts[{e.task, e.Field("step"), e.Field("key")}];
      if (n == 2) {
        Report(kInvariantSendRecv,
               absl::StrCat("session ", e.task, " step ", e.Field("step"),
                            ": key ", e.Field("key"), " was ",
                            send ? "sent" : "received",
                            " twice (t=", e.time_nanos, ")"));
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace stepflow
