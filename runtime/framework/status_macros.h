// Status propagation helpers used throughout the runtime.
//
//   SF_RETURN_IF_ERROR(DoThing());
//   SF_ASSIGN_OR_RETURN(Graph* g, BuildGraph(def));
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_STATUS_MACROS_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define SF_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status _sf_status = (expr);      \
    if (!_sf_status.ok()) return _sf_status; \
  } while (0)

#define SF_STATUS_CONCAT_INNER_(a, b) a##b
#define SF_STATUS_CONCAT_(a, b) SF_STATUS_CONCAT_INNER_(a, b)

#define SF_ASSIGN_OR_RETURN(lhs, expr)                                       \
  SF_ASSIGN_OR_RETURN_IMPL_(SF_STATUS_CONCAT_(_sf_statusor_, __LINE__), lhs, \
                            expr)

#define SF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return statusor.status();        \
  lhs = std::move(statusor).value()

namespace stepflow {

// Returns `s` with `context` prepended to its message (same code). OK stays OK.
absl::Status AnnotateStatus(const absl::Status& s, absl::string_view context);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_STATUS_MACROS_H_
