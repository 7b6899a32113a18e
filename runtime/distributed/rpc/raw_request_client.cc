// raw_request_client: sends one session's requests to a grpc_server's
// master exactly as given, for tests that need requests no well-behaved
// client would build (an 11-byte TensorProto declaring 2^32 elements):
// CreateSession with a text GraphDef, one RunStep with raw TensorProto
// feeds, CloseSession. Prints "RunStep: <code>: <message>" and exits 0 when
// the RunStep's code is --expect, 1 otherwise (2 on bad flags or a failed
// CreateSession). With --sessions=N it does that N times in a row, and with
// --close=false it never closes them (a client that abandons its sessions);
// it then prints one summary line instead of one line per call. testonly.
//
//   raw_request_client --target=127.0.0.1:2222 --graph=g.pbtxt --fetch=y \
//       --feed='x=dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } }' \
//       --expect=RESOURCE_EXHAUSTED
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "proto/master.pb.h"
#include "runtime/distributed/rpc/grpc_transport.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/real_env.h"

ABSL_FLAG(std::string, target, "", "The master's host:port");
ABSL_FLAG(std::string, graph, "", "GraphDef in text form");
ABSL_FLAG(std::vector<std::string>, fetch, {}, "Tensors to fetch");
ABSL_FLAG(std::vector<std::string>, feed, {},
          "name=<TensorProto in text form>, sent as is (repeatable)");
ABSL_FLAG(std::string, expect, "OK", "The RunStep status code expected");
ABSL_FLAG(int, sessions, 1, "Sessions to create, one after another");
ABSL_FLAG(bool, close, true, "Close each session after its step");

namespace stepflow {
namespace {

absl::Status Call(Env* env, const std::string& target, const char* method,
                  const google::protobuf::Message& request,
                  google::protobuf::Message* response) {
  Notification done;
  absl::Status status;
  CallOptions options;
  options.timeout_nanos = int64_t{120} * 1000000000;
  env->transport->Call(target, method, request, response, options,
                       [&](const absl::Status& s) {
                         status = s;
                         done.Notify();
                       });
  env->scheduler->WaitFor(&done);
  return status;
}

std::string CodeName(const absl::Status& s) {
  std::string name = absl::StatusCodeToString(s.code());
  for (char& c : name) c = c == ' ' ? '_' : static_cast<char>(toupper(c));
  return name;
}

int Main() {
  std::ifstream in(absl::GetFlag(FLAGS_graph));
  std::stringstream text;
  text << in.rdbuf();
  CreateSessionRequest create;
  if (!in || !google::protobuf::TextFormat::ParseFromString(
                 text.str(), create.mutable_graph_def())) {
    std::fprintf(stderr, "cannot read --graph\n");
    return 2;
  }
  RunStepRequest run;
  for (const std::string& feed : absl::GetFlag(FLAGS_feed)) {
    const size_t eq = feed.find('=');
    NamedTensorProto* f = run.add_feed();
    if (eq == std::string::npos ||
        !google::protobuf::TextFormat::ParseFromString(feed.substr(eq + 1),
                                                       f->mutable_tensor())) {
      std::fprintf(stderr, "bad --feed '%s'\n", feed.c_str());
      return 2;
    }
    f->set_name(feed.substr(0, eq));
    std::printf("feed %s: %zu bytes on the wire\n", f->name().c_str(),
                f->tensor().ByteSizeLong());
  }
  for (const std::string& fetch : absl::GetFlag(FLAGS_fetch)) {
    run.add_fetch(fetch);
  }

  std::unique_ptr<RealEnv> real = RealEnv::Create(2);
  Env env = *real->env();
  auto transport =
      GrpcTransport::Create(GrpcTransport::Options(), env.scheduler);
  if (!transport.ok()) {
    std::fprintf(stderr, "%s\n", transport.status().ToString().c_str());
    return 2;
  }
  env.transport = transport->get();
  const std::string target = absl::GetFlag(FLAGS_target);

  const int sessions = absl::GetFlag(FLAGS_sessions);
  const bool close_sessions = absl::GetFlag(FLAGS_close);
  const bool verbose = sessions == 1;
  absl::BitGen gen;
  int as_expected = 0;
  for (int i = 0; i < sessions; ++i) {
    CreateSessionResponse created;
    absl::Status s =
        Call(&env, target, "MasterService/CreateSession", create, &created);
    if (verbose || !s.ok()) {
      std::printf("CreateSession: %s\n", s.ToString().c_str());
    }
    if (!s.ok()) return 2;
    run.set_session_handle(created.session_handle());
    // Unique across runs: the master refuses a request id it has seen.
    run.set_request_id(absl::Uniform<int64_t>(gen, 1, INT64_MAX));
    RunStepResponse ran;
    s = Call(&env, target, "MasterService/RunStep", run, &ran);
    if (verbose) {
      std::printf("RunStep: %s: %s\n", CodeName(s).c_str(),
                  std::string(s.message()).c_str());
    }
    if (CodeName(s) == absl::GetFlag(FLAGS_expect)) ++as_expected;
    if (!close_sessions) continue;
    CloseSessionRequest close_request;
    close_request.set_session_handle(created.session_handle());
    CloseSessionResponse closed;
    absl::Status c = Call(&env, target, "MasterService/CloseSession",
                          close_request, &closed);
    if (verbose) std::printf("CloseSession: %s\n", c.ToString().c_str());
  }
  if (!verbose) {
    std::printf("%d sessions (%s): %d steps %s as expected\n", sessions,
                close_sessions ? "closed" : "left open", as_expected,
                absl::GetFlag(FLAGS_expect).c_str());
  }
  std::fflush(stdout);
  return as_expected == sessions ? 0 : 1;
}

}  // namespace
}  // namespace stepflow

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return stepflow::Main();
}
