#include "fuzz/grpc_server_seeds.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/server_calls.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "runtime/distributed/methods.h"

namespace stepflow::fuzzing {
namespace {

constexpr char kDev0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:worker/replica:0/task:0/device:CPU:1";

// One call: method, request as protobuf text, flags.
struct Text {
  std::string method;
  std::string request;
  bool async = false;
  bool idle_before = false;
  bool raw = false;  // `request` is the body's bytes, not text.
};

std::string Attr(const std::string& key, const std::string& value) {
  return "attr { key: '" + key + "' value { " + value + " } } ";
}

std::string FloatConst(const std::string& name, float v,
                       const std::string& device) {
  return "node { name: '" + name + "' op: 'Const' device: '" + device + "' " +
         Attr("dtype", "type: DT_FLOAT") +
         Attr("value", "tensor { dtype: DT_FLOAT tensor_shape {} float_val: " +
                           std::to_string(v) + " }") +
         "} ";
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b,
                   const std::string& device) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + a +
         "' input: '" + b + "' device: '" + device + "' " +
         Attr("T", "type: DT_FLOAT") + "} ";
}

std::string FloatPlaceholder(const std::string& name) {
  return "node { name: '" + name + "' op: 'Placeholder' " +
         Attr("dtype", "type: DT_FLOAT") + "} ";
}

// x (fed) + c on CPU:0, times c on CPU:1 (a cross-device edge).
std::string SessionGraph() {
  return "graph_def { " + FloatConst("c", 2, kDev0) + FloatPlaceholder("x") +
         Binary("s", "AddV2", "x", "c", kDev0) +
         Binary("m", "Mul", "s", "c", kDev1) + "versions { producer: 27 } } ";
}

std::string FeedX(float v) {
  return "feed { name: 'x' tensor { dtype: DT_FLOAT tensor_shape {} "
         "float_val: " +
         std::to_string(v) + " } } ";
}

std::string Encode(const std::vector<Text>& texts) {
  std::vector<ServerCall> calls;
  for (const Text& t : texts) {
    ServerCall c;
    c.method = t.method;
    c.async = t.async;
    c.idle_before = t.idle_before;
    std::unique_ptr<google::protobuf::Message> req, resp;
    if (!t.raw) {
      if (!NewRequestAndResponse(t.method, &req, &resp).ok() ||
          !google::protobuf::TextFormat::ParseFromString(t.request,
                                                         req.get())) {
        std::fprintf(stderr, "bad seed request for %s: %s\n", t.method.c_str(),
                     t.request.c_str());
        std::abort();
      }
      req->SerializeToString(&c.body);
    } else {
      c.body = t.request;
    }
    calls.push_back(std::move(c));
  }
  return EncodeServerCalls(calls);
}

}  // namespace

std::vector<Seed> GrpcServerSeeds() {
  const std::string create = SessionGraph();
  const std::string run =
      "session_handle: '@0' " + FeedX(3) + "fetch: 'm:0' request_id: 7";
  std::vector<std::pair<std::string, std::vector<Text>>> seeds = {
      {"master_create_run_close",
       {{"MasterService/CreateSession", create},
        {"MasterService/RunStep", run},
        {"MasterService/CloseSession", "session_handle: '@0'"}}},
      {"master_extend_run",
       {{"MasterService/CreateSession", create},
        {"MasterService/ExtendSession",
         "session_handle: '@0' current_graph_version: 0 graph_def { " +
             Binary("n", "Sub", "m", "c", kDev0) +
             "versions { producer: 27 } }"},
        {"MasterService/RunStep", "session_handle: '@0' " + FeedX(1) +
                                      "fetch: 'n' fetch: 's' request_id: 1"},
        {"MasterService/CloseSession", "session_handle: '@0'"}}},
      {"master_run_errors_in_body",
       {{"MasterService/CreateSession", create},
        {"MasterService/RunStep",
         "session_handle: '@0' fetch: 'm' store_errors_in_response_body: "
         "true request_id: 2"}}},
      {"master_run_trace_timeout",
       {{"MasterService/CreateSession",
         create + "config { operation_timeout_in_ms: 1000 }"},
        {"MasterService/RunStep",
         "session_handle: '@0' " + FeedX(2) +
             "fetch: 'm' options { trace_level: FULL_TRACE "
             "timeout_in_ms: 500 } request_id: 3"}}},
      {"master_partial_run",
       {{"MasterService/CreateSession", create},
        {"MasterService/PartialRunSetup",
         "session_handle: '@0' feed: 'x' fetch: 's' fetch: 'm' request_id: "
         "4"},
        {"MasterService/RunStep",
         "session_handle: '@0' partial_run_handle: '@0' " + FeedX(5) +
             "fetch: 's' request_id: 5"},
        {"MasterService/RunStep",
         "session_handle: '@0' partial_run_handle: '@0' fetch: 'm' "
         "request_id: 6"}}},
      {"master_overlapping_run_close",
       {{"MasterService/CreateSession", create},
        {"MasterService/RunStep", run, /*async=*/true},
        {"MasterService/CloseSession", "session_handle: '@0'", true},
        {"MasterService/RunStep",
         "session_handle: '@0' " + FeedX(1) + "fetch: 'm' request_id: 8"}}},
      {"master_duplicate_request_id",
       {{"MasterService/CreateSession", create},
        {"MasterService/RunStep", run, true},
        {"MasterService/RunStep", run}}},
      {"master_session_gc",
       {{"MasterService/CreateSession", create},
        {"MasterService/RunStep", run, false, true},
        {"MasterService/ListDevices", "", false, true},
        {"MasterService/ListDevices", "", false, true},
        {"MasterService/ListDevices", "", false, true},
        {"MasterService/ListDevices", "", false, true},
        {"MasterService/RunStep",
         "session_handle: '@0' " + FeedX(1) + "fetch: 'm' request_id: 9"}}},
      {"master_list_devices", {{"MasterService/ListDevices", ""}}},
      {"master_reset",
       {{"MasterService/CreateSession", create},
        {"MasterService/Reset", "container: '' container: 'c1'"},
        {"MasterService/RunStep", run}}},
      {"master_unknown_session",
       {{"MasterService/RunStep", "session_handle: 'nope' fetch: 'm'"},
        {"MasterService/ExtendSession", "session_handle: 'nope'"},
        {"MasterService/CloseSession", "session_handle: 'nope'"},
        {"MasterService/PartialRunSetup", "session_handle: 'nope'"}}},
      {"worker_status", {{"WorkerService/GetStatus", ""}}},
      {"worker_heartbeat",
       {{"WorkerService/GetStatus",
         "master_task: '/job:worker/replica:0/task:0' "
         "master_incarnation: 99"}}},
      {"worker_graph_lifecycle",
       {{"WorkerService/CreateWorkerSession",
         "session_handle: 'ws' master_task: "
         "'/job:worker/replica:0/task:0' master_incarnation: 5"},
        {"WorkerService/RegisterGraph",
         "session_handle: 'ws' graph_def { " + FloatConst("a", 1, kDev0) +
             FloatConst("b", 2, kDev0) + Binary("p", "Mul", "a", "b", kDev0) +
             "versions { producer: 27 } }"},
        {"WorkerService/RunGraph",
         "session_handle: 'ws' graph_handle: '@0' step_id: 11 request_id: 1"},
        {"WorkerService/CleanupGraph", "step_id: 11"},
        {"WorkerService/DeregisterGraph",
         "session_handle: 'ws' graph_handle: '@0'"},
        {"WorkerService/DeleteWorkerSession", "session_handle: 'ws'"}}},
      {"worker_lease_expiry",
       {{"WorkerService/CreateWorkerSession",
         "session_handle: 'ws' master_task: '/job:master/replica:0/task:9' "
         "master_incarnation: 5"},
        {"WorkerService/RegisterGraph",
         "session_handle: 'ws' graph_def { " + FloatConst("a", 1, kDev0) + "}",
         false, true},
        {"WorkerService/RunGraph",
         "session_handle: 'ws' graph_handle: '@0' step_id: 3", false, true},
        {"WorkerService/GetStatus", "", false, true},
        {"WorkerService/GetStatus", "", false, true},
        {"WorkerService/GetStatus", "", false, true},
        {"WorkerService/RunGraph",
         "session_handle: 'ws' graph_handle: '@0' step_id: 4"}}},
      {"worker_recv_tensor",
       {{"WorkerService/RecvTensor",
         "step_id: 1 rendezvous_key: '/job:worker/replica:0/task:0/device:"
         "CPU:0;0000000000000001;/job:worker/replica:0/task:0/device:CPU:1;"
         "edge_1_x;0:0' request_id: 1",
         true},
        {"WorkerService/CleanupGraph", "step_id: 1"}}},
      {"worker_reset",
       {{"WorkerService/CleanupAll", "container: ''"},
        {"WorkerService/CleanupAll", ""}}},
      {"unknown_method", {{kUnknownMethod, "xyz", false, false, true}}},
      {"malformed_requests",
       {{"MasterService/CreateSession", "\x0a\xff\xff\xff\xff\x0f", false,
         false, true},
        {"WorkerService/RunGraph", "\x08", false, false, true},
        {"WorkerService/RecvTensor", std::string("\x12\x05") + "ab", false,
         false, true}}},
  };
  std::vector<Seed> out;
  for (const auto& [name, texts] : seeds) {
    out.push_back({name, Encode(texts)});
  }
  // One bare seed per method: an empty request.
  for (const std::string& method : ServerCallMethods()) {
    std::string name = "empty_" + method;
    for (char& c : name) {
      if (c == '/') c = '_';
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    out.push_back(
        {name, Encode({{method, "", false, false, method == kUnknownMethod}})});
  }
  return out;
}

}  // namespace stepflow::fuzzing
