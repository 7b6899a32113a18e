// ServerCalls: how grpc_server_fuzzer's bytes spell a sequence of RPCs to
// one server task (a MasterService and a WorkerService behind one
// ServiceMux, as GrpcServer serves them), and the encoder its seeds use.
//
// Layout, front to back, one record per call (at most kMaxServerCalls;
// bytes after the last record are ignored):
//   flags+method  1 byte: bits 0-4 pick the method, (b & 0x1f) % 17: the
//                 16 methods of ListMethods() (runtime/distributed/
//                 methods.h, sorted) or, for 16, an unknown method;
//                 bit 5: before the call, let kIdleNanos of virtual time
//                 pass (timers: leases, session GC, heartbeats);
//                 bit 6: reserved (ignored);
//                 bit 7: asynchronous: issue the next call without waiting
//                 for this one's answer (calls then overlap).
//   length        2 bytes, little-endian;
//   body          that many bytes (fewer if the input ends): the request,
//                 protobuf wire encoding of the method's request type.
// An input with no complete flags byte decodes to no calls.
//
// Handles: in a request, a top-level string field named session_handle,
// graph_handle or partial_run_handle whose value is "@<digits>" is
// replaced, before the call, by the (n mod count)-th non-empty value of
// that field returned by an earlier call of the same input (left as is if
// there is none), so inputs can reach sessions whose handles the server
// draws at run time.
//
// Thread-safety: plain functions.
#ifndef STEPFLOW_FUZZ_SERVER_CALLS_H_
#define STEPFLOW_FUZZ_SERVER_CALLS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stepflow::fuzzing {

inline constexpr size_t kMaxServerCalls = 8;
inline constexpr int64_t kIdleNanos = int64_t{25} * 1000000000;
inline constexpr char kUnknownMethod[] = "WorkerService/NoSuchMethod";

struct ServerCall {
  std::string method;  // A ListMethods() name, or kUnknownMethod.
  bool idle_before = false;
  bool async = false;
  std::string body;
};

// The method names the method bits choose from, in order (17 entries).
const std::vector<std::string>& ServerCallMethods();

std::vector<ServerCall> DecodeServerCalls(const uint8_t* data, size_t size);

// The bytes DecodeServerCalls turns back into `calls` (bodies longer than
// 65535 bytes are truncated; a method not in ServerCallMethods() is
// encoded as kUnknownMethod).
std::string EncodeServerCalls(const std::vector<ServerCall>& calls);

}  // namespace stepflow::fuzzing

#endif  // STEPFLOW_FUZZ_SERVER_CALLS_H_
