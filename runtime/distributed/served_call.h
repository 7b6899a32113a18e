// ServedCall: the server side of one unary call, from the bytes a transport
// received to the RpcHandler that answers it, with no networking.
//
//   ServedCall call;
//   absl::Status s = ParseServedCall("WorkerService/RunGraph", &bytes, &call);
//   if (!s.ok()) { /* answer s; no handler runs */ }
//   handler->Handle(call.method, *call.request, call.response.get(), done);
//
// ParseServedCall makes a fresh request and response of the method's types
// (runtime/distributed/methods.h) and parses the request from the stream.
// GrpcTransport's server does exactly this for every call it receives (then
// picks the handler by the call's task), and the gRPC server fuzzer
// (fuzz/grpc_server_fuzzer.cc) drives the same function with fuzzed bytes,
// so both exercise one code path from request bytes to handler.
//
// Errors: Unimplemented naming an unknown method; InvalidArgument
// ("malformed <method> request[: <why>]") when the bytes are not a valid
// encoding of the request type. What protobuf says about such bytes (e.g. a
// string field holding invalid UTF-8) goes into that error, not into the
// process's log: a client sending garbage cannot flood the server's log.
// On error `call` is left empty (no messages).
//
// Ownership: `call` owns its messages; the handler borrows them until its
// `done` runs, so the caller keeps `call` alive until then.
// Thread-safety: a plain function.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_SERVED_CALL_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_SERVED_CALL_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"

namespace stepflow {

struct ServedCall {
  std::string method;  // "<Service>/<Method>".
  std::unique_ptr<google::protobuf::Message> request;
  std::unique_ptr<google::protobuf::Message> response;  // Empty.
};

absl::Status ParseServedCall(
    absl::string_view method,
    google::protobuf::io::ZeroCopyInputStream* request_bytes, ServedCall* call);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_SERVED_CALL_H_
