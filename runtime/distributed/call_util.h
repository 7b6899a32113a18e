// Helpers for issuing typed RPCs through Env::transport.
//
// CallTask<Req, Resp>(env, task, method, request, options, done) calls
// `method` of `task` and hands `done` the status and the response (owned by
// the helper, valid during `done`). A failure's message is made to name the
// task (appended when missing) so errors tell which task failed; the code is
// kept. No transport in the Env is FailedPrecondition (through `done`).
//
// CallTaskRetrying(...) is for idempotent clean-up calls (CleanupGraph,
// DeleteWorkerSession): `first_done` gets the first attempt's status; if
// that was Unavailable or DeadlineExceeded the call is repeated in the
// background after retry.initial_backoff_nanos, doubling, up to
// retry.max_attempts attempts in all, until one is answered. The retries
// hold only the Env (borrowed; it must outlive them) and a copy of the
// request.
//
// Thread-safety: as the transport.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_

#include <cstdint>
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
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), " (task ", task, ")"));
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

struct RetryPolicy {
  int max_attempts = 8;
  int64_t initial_backoff_nanos = 50 * 1000 * 1000;
};

inline bool IsRetriableRpcError(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

template <typename Req, typename Resp>
void CallTaskRetrying(Env* env, const std::string& task,
                      const std::string& method, const Req& request,
                      const CallOptions& options, const RetryPolicy& retry,
                      std::function<void(const absl::Status&)> first_done) {
  struct Attempt {
    static void Run(Env* env, std::shared_ptr<const Req> req, std::string task,
                    std::string method, CallOptions options, RetryPolicy retry,
                    int attempt, int64_t backoff,
                    std::function<void(const absl::Status&)> first_done) {
      CallTask<Req, Resp>(
          env, task, method, *req, options, [=](const absl::Status& s, Resp*) {
            if (first_done) first_done(s);
            if (!IsRetriableRpcError(s) || attempt + 1 >= retry.max_attempts) {
              return;
            }
            env->scheduler->ScheduleAfter(backoff, [=] {
              Run(env, req, task, method, options, retry, attempt + 1,
                  backoff * 2, nullptr);
            });
          });
    }
  };
  CallOptions opts = options;
  opts.cancellation = nullptr;  // Retries outlive any caller's manager.
  Attempt::Run(env, std::make_shared<const Req>(request), task, method, opts,
               retry, 0, retry.initial_backoff_nanos, std::move(first_done));
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_CALL_UTIL_H_
