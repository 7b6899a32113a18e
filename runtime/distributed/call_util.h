// Helpers for issuing typed RPCs through Env::transport.
//
// CallTask<Req, Resp>(env, task, method, request, options, done) calls
// `method` of `task` and hands `done` the status and the response (owned by
// the helper, valid during `done`). A failure's message is made to name the
// task (appended when missing) so errors tell which task failed; the code is
// kept. No transport in the Env is FailedPrecondition (through `done`).
//
// Thread-safety: as the transport.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/env/env.h"
#include "runtime/env/transport.h"

namespace stepflow {

// `s` with `task` named in its message (unchanged if OK or already named).
inline absl::Status NameTask(const absl::Status& s, const std::string& task) {
  if (s.ok() || absl::StrContains(s.message(), task)) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), " (task ", task, ")"));
}

template <typename Req, typename Resp>
void CallTask(Env* env, const std::string& task, const std::string& method,
              const Req& request, const CallOptions& options,
              std::function<void(const absl::Status&, Resp*)> done) {
  auto response = std::make_shared<Resp>();
  if (env->transport == nullptr) {
    done(absl::FailedPreconditionError(
             absl::StrCat("No transport to call ", method, " on ", task)),
         response.get());
    return;
  }
  env->transport->Call(
      task, method, request, response.get(), options,
      [response, task, done = std::move(done)](const absl::Status& s) {
        done(NameTask(s, task), response.get());
      });
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_
