// PickUnusedPort: a TCP port on the loopback interface that no socket is
// bound to at the time of the call (the kernel chooses it), for tests and
// TF_PickUnusedPortOrDie. Another process may take it before the caller
// binds it: callers that can must bind port 0 themselves instead.
//
// Errors: Unavailable with the system's reason when no socket can be
// created or bound. Thread-safe.
#ifndef STEPFLOW_RUNTIME_ENV_REAL_UNUSED_PORT_H_
#define STEPFLOW_RUNTIME_ENV_REAL_UNUSED_PORT_H_

#include "absl/status/statusor.h"

namespace stepflow {

absl::StatusOr<int> PickUnusedPort();

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_ENV_REAL_UNUSED_PORT_H_
