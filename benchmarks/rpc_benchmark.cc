// Distributed runtime over loopback gRPC, each against a peer measured in
// the same run, all in one process on 127.0.0.1:
//
//   bazel run -c opt //benchmarks:rpc_benchmark -- --benchmark_min_time=0.2
//
//  * BM_GrpcRecvTensor/bytes:N: a "WorkerService/RecvTensor" call through
//    GrpcTransport from a client transport to a second, serving transport
//    whose handler answers with a RecvTensorResponse carrying a prebuilt
//    float TensorProto of N bytes in tensor_content (copied into the
//    response, as the worker's TensorToProto copies the tensor). A fresh
//    response message per call, as the remote rendezvous uses. N = 4 MiB:
//    throughput; N = 4 (one float): round-trip latency.
//  * BM_TcpRecv/bytes:N (peer): the same pull over a plain loopback TCP
//    connection (TCP_NODELAY both ends): the client writes an 8-byte
//    request (the size it wants), a server thread answers with an 8-byte
//    length and N bytes from a prebuilt buffer, the client reads them into
//    a preallocated buffer. No serialisation, no framing beyond the length:
//    the floor a transport on this machine can approach.
//  * BM_DistributedStep: Session::Run through a "grpc://" session on a
//    two-task cluster (two GrpcServer tasks, each a master + worker behind
//    its own GrpcTransport on loopback) of a = Const(float scalar) on task 0
//    and b = Identity(a) on task 1, fetching b: the cross-task edge makes a
//    RunGraph per task and a RecvTensor per step.
//  * BM_LocalStep (peer): the same graph with a on /device:CPU:0 and b on
//    /device:CPU:1 of a DirectSession (NewSession with target "").
//  * BM_ClusterStep/cluster:C and BM_CrossTaskTransfer/bytes:N/cluster:C:
//    the same stepflow client (a "grpc://" session) against a two-task
//    cluster of stepflow servers (C = 0, in this process) and of
//    TensorFlow's own servers (C = 1: tf.distribute.Server processes whose
//    addresses --tf_cluster=HOST:PORT,HOST:PORT gives; benchmarks/
//    run_all.sh starts them; without the flag the C = 1 rows are skipped).
//    ClusterStep is BM_DistributedStep's graph. CrossTaskTransfer: a
//    variable of N bytes of floats on task 1 (initialised once) read by an
//    Identity on task 0, run as a target (nothing fetched): a RunGraph per
//    task and a worker-to-worker RecvTensor of N bytes per step. After
//    timing, a Sum of the Identity is fetched once and checked.
//
// Counters: per_call / per_run (seconds; printed with an SI prefix, e.g.
// "85u"), cpu_per_call / cpu_per_run (CPU seconds of the whole process, all
// threads: client, server, gRPC and kernel time, much less disturbed by
// other load than the wall time) and, for the transfers, bytes_per_second
// (tensor bytes). Times are wall-clock (UseRealTime): the work happens on
// other threads.
// Envs are RealEnvs; the step benchmarks' servers and the local session
// use 2 inter-op threads each, the transfer benchmarks 1.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "benchmarks/run_benchmarks.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "proto/worker.pb.h"
#include "runtime/common/session.h"
#include "runtime/distributed/rpc/grpc_server.h"
#include "runtime/distributed/rpc/grpc_transport.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow::bench {
namespace {

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";
constexpr int64_t kLargeBytes = 4 << 20;

// CPU seconds used so far by all threads of this process.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Sets `name` (seconds per iteration) and `cpu_name` (process CPU seconds
// per iteration, from `cpu_start`, taken just before the timed loop).
void SetPer(benchmark::State& state, const char* name, const char* cpu_name,
            double cpu_start) {
  const double cpu = ProcessCpuSeconds() - cpu_start;
  state.counters[name] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
  state.counters[cpu_name] = benchmark::Counter(
      state.iterations() > 0 ? cpu / static_cast<double>(state.iterations())
                             : 0.0);
}

// ---------------------------------------------------------------------------
// RecvTensor through GrpcTransport.

// A float tensor of `bytes` bytes (a multiple of 4) as the worker encodes
// it: dtype, shape and tensor_content.
TensorProto FloatTensorProto(int64_t bytes) {
  Tensor t(DT_FLOAT, TensorShape({bytes / 4}));
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i)
    flat(i) = static_cast<float>(i % 251);
  TensorProto proto;
  TensorToProto(t, &proto);
  return proto;
}

// Answers "WorkerService/RecvTensor" with a copy of one prebuilt tensor.
class RecvTensorHandler : public RpcHandler {
 public:
  explicit RecvTensorHandler(TensorProto tensor) : tensor_(std::move(tensor)) {}

  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message* response, DoneCallback done) override {
    if (method != "WorkerService/RecvTensor") {
      done(absl::UnimplementedError(absl::StrCat("no method ", method)));
      return;
    }
    auto* r = static_cast<RecvTensorResponse*>(response);
    *r->mutable_tensor() = tensor_;
    done(absl::OkStatus());
  }

 private:
  const TensorProto tensor_;
};

void BM_GrpcRecvTensor(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  RecvTensorHandler handler(FloatTensorProto(bytes));
  GrpcTransport::Options server_options;
  server_options.listen_address = "127.0.0.1:0";
  auto server = GrpcTransport::Create(server_options, env->env()->scheduler);
  if (!server.ok()) {
    state.SkipWithError(server.status().ToString().c_str());
    return;
  }
  absl::Status s = (*server)->Serve(kTask0, &handler);
  GrpcTransport::Options client_options;
  client_options.addresses[kTask0] =
      absl::StrCat("127.0.0.1:", (*server)->bound_port());
  auto client = GrpcTransport::Create(client_options, env->env()->scheduler);
  if (s.ok() && !client.ok()) s = client.status();
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  RecvTensorRequest request;
  request.set_step_id(1);
  request.set_rendezvous_key(
      absl::StrCat(kTask0, "/device:CPU:0;0000000000000001;", kTask1,
                   "/device:CPU:0;edge_1_a;0:0"));
  auto call = [&](RecvTensorResponse* response) {
    request.set_request_id(request.request_id() + 1);
    absl::Notification n;
    absl::Status status;
    (*client)->Call(kTask0, "WorkerService/RecvTensor", request, response,
                    CallOptions(), [&](const absl::Status& st) {
                      status = st;
                      n.Notify();
                    });
    n.WaitForNotification();
    return status;
  };
  RecvTensorResponse response;
  s = call(&response);  // Warm-up: connects the channel.
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!s.ok()) break;
    RecvTensorResponse r;
    s = call(&r);
    benchmark::DoNotOptimize(r.tensor().tensor_content().data());
    if (s.ok()) response = std::move(r);
  }
  SetPer(state, "per_call", "cpu_per_call", cpu_start);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
  } else if (static_cast<int64_t>(response.tensor().tensor_content().size()) !=
             bytes) {
    state.SkipWithError("wrong tensor size received");
  }
  (*server)->StopServing(kTask0);
  client->reset();
  server->reset();
  state.SetBytesProcessed(state.iterations() * bytes);
}

// ---------------------------------------------------------------------------
// The raw TCP peer.

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// A loopback server thread serving one connection: for each 8-byte request
// (the payload size wanted, at most `max_bytes`) it writes an 8-byte length
// and that many bytes of a prebuilt buffer, in one send loop. The thread
// ends when the client closes its end.
class TcpPeer {
 public:
  explicit TcpPeer(int64_t max_bytes) : reply_(8 + max_bytes) {
    for (size_t i = 8; i < reply_.size(); ++i) reply_[i] = static_cast<char>(i);
  }
  ~TcpPeer() {
    if (client_fd_ >= 0) ::close(client_fd_);
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  // Listens, connects the client end and starts the server thread.
  absl::Status Start() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) ||
        ::listen(listen_fd_, 1) ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len)) {
      return absl::UnavailableError(
          absl::StrCat("listen: ", std::strerror(errno)));
    }
    client_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (client_fd_ < 0 ||
        ::connect(client_fd_, reinterpret_cast<sockaddr*>(&addr),
                  sizeof(addr))) {
      return absl::UnavailableError(
          absl::StrCat("connect: ", std::strerror(errno)));
    }
    NoDelay(client_fd_);
    const int server_fd = ::accept(listen_fd_, nullptr, nullptr);
    if (server_fd < 0) {
      return absl::UnavailableError(
          absl::StrCat("accept: ", std::strerror(errno)));
    }
    NoDelay(server_fd);
    thread_ = std::thread([this, server_fd] { Serve(server_fd); });
    return absl::OkStatus();
  }

  // One request/response; the payload lands in `*payload` (sized by the
  // caller). False if the connection failed.
  bool Pull(std::vector<char>* payload) {
    uint64_t want = payload->size();
    char header[8];
    std::memcpy(header, &want, 8);
    if (!WriteAll(client_fd_, header, 8) || !ReadAll(client_fd_, header, 8)) {
      return false;
    }
    uint64_t got = 0;
    std::memcpy(&got, header, 8);
    return got == want && ReadAll(client_fd_, payload->data(), got);
  }

 private:
  void Serve(int fd) {
    char header[8];
    while (ReadAll(fd, header, 8)) {
      uint64_t want = 0;
      std::memcpy(&want, header, 8);
      if (want > reply_.size() - 8) break;
      std::memcpy(reply_.data(), &want, 8);
      if (!WriteAll(fd, reply_.data(), 8 + want)) break;
    }
    ::close(fd);
  }

  std::vector<char> reply_;
  int listen_fd_ = -1;
  int client_fd_ = -1;
  std::thread thread_;
};

void BM_TcpRecv(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  TcpPeer peer(bytes);
  absl::Status s = peer.Start();
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::vector<char> payload(bytes);
  bool ok = peer.Pull(&payload);  // Warm-up.
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!ok) break;
    ok = peer.Pull(&payload);
    benchmark::DoNotOptimize(payload.data());
  }
  SetPer(state, "per_call", "cpu_per_call", cpu_start);
  if (!ok) {
    state.SkipWithError("loopback TCP transfer failed");
  } else if (bytes > 8 && payload[bytes - 1] != static_cast<char>(bytes + 7)) {
    state.SkipWithError("wrong payload received");
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

// ---------------------------------------------------------------------------
// A step with one cross-device edge: distributed over gRPC, and local.

// a = Const(1.5) on `a_device`, b = Identity(a) on `b_device`.
GraphDef CrossDeviceGraph(const std::string& a_device,
                          const std::string& b_device) {
  GraphDef g;
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  NodeDef* a = g.add_node();
  a->set_name("a");
  a->set_op("Const");
  a->set_device(a_device);
  (*a->mutable_attr())["dtype"] = float_type;
  TensorProto* value = (*a->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(1.5f);
  NodeDef* b = g.add_node();
  b->set_name("b");
  b->set_op("Identity");
  b->set_device(b_device);
  b->add_input("a");
  (*b->mutable_attr())["T"] = float_type;
  return g;
}

// Runs the session's step (fetch b) before and during timing.
void RunSteps(benchmark::State& state, Session* session) {
  const std::vector<std::string> fetches = {"b"};
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, fetches, {}, &out);  // Warm-up.
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!s.ok()) break;
    s = session->Run({}, fetches, {}, &out);
  }
  SetPer(state, "per_run", "cpu_per_run", cpu_start);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
  } else if (out.size() != 1 || out[0].NumElements() != 1 ||
             out[0].flat<float>()(0) != 1.5f) {
    state.SkipWithError("wrong value fetched");
  }
}

// Makes a session from `options`, creates `graph` and runs its step; the
// session is closed before returning.
void CreateAndRunSteps(benchmark::State& state, const SessionOptions& options,
                       const GraphDef& graph) {
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(options, &session);
  if (s.ok()) s = session->Create(graph);
  if (s.ok()) {
    RunSteps(state, session.get());
  } else {
    state.SkipWithError(s.ToString().c_str());
  }
  if (session != nullptr) session->Close().IgnoreError();
}

// A port nothing listens on right now (the kernel's choice; another
// process may take it before the server binds, so callers retry).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// Two GrpcServer tasks on loopback (a few tries against port races).
absl::Status StartCluster(std::vector<std::unique_ptr<GrpcServer>>* servers,
                          std::string* master_address) {
  absl::Status s;
  for (int attempt = 0; attempt < 5; ++attempt) {
    servers->clear();
    const std::vector<std::string> addresses = {
        absl::StrCat("127.0.0.1:", FreePort()),
        absl::StrCat("127.0.0.1:", FreePort())};
    for (int i = 0; i < 2; ++i) {
      GrpcServer::Options o;
      for (int t = 0; t < 2; ++t) {
        s = o.cluster.AddTask("worker", t, addresses[t]);
        if (!s.ok()) return s;
      }
      o.task_index = i;
      o.inter_op_threads = 2;
      std::unique_ptr<GrpcServer> server;
      s = GrpcServer::Create(o, &server);
      if (!s.ok()) break;
      servers->push_back(std::move(server));
    }
    if (s.ok()) {
      *master_address = addresses[0];
      return s;
    }
  }
  servers->clear();
  return s;
}

void BM_DistributedStep(benchmark::State& state) {
  std::vector<std::unique_ptr<GrpcServer>> servers;
  std::string master;
  absl::Status s = StartCluster(&servers, &master);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  SessionOptions options;
  options.env = env->env();
  options.target = absl::StrCat("grpc://", master);
  CreateAndRunSteps(state, options, CrossDeviceGraph(kTask0, kTask1));
  servers.clear();
  env.reset();
}

void BM_LocalStep(benchmark::State& state) {
  std::unique_ptr<RealEnv> env = RealEnv::Create(2);
  SessionOptions options;
  options.env = env->env();
  (*options.config.mutable_device_count())["CPU"] = 2;
  CreateAndRunSteps(state, options,
                    CrossDeviceGraph("/device:CPU:0", "/device:CPU:1"));
  env.reset();
}

// ---------------------------------------------------------------------------
// The same client against stepflow's servers and TensorFlow's.

// Set by --tf_cluster: TensorFlow's two tasks (task 0 first).
std::vector<std::string>& TfCluster() {
  static std::vector<std::string> addresses;
  return addresses;
}

// Runs `body` with a "grpc://" target for cluster `kind` (0: stepflow
// servers started here, 1: TensorFlow's from --tf_cluster).
void WithCluster(benchmark::State& state, int64_t kind,
                 const std::function<void(const SessionOptions&)>& body) {
  std::vector<std::unique_ptr<GrpcServer>> servers;
  std::string master;
  if (kind == 0) {
    absl::Status s = StartCluster(&servers, &master);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  } else if (TfCluster().size() == 2) {
    master = TfCluster()[0];
  } else {
    state.SkipWithError(
        "no TensorFlow cluster (--tf_cluster=HOST:PORT,HOST:PORT)");
    return;
  }
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  SessionOptions options;
  options.env = env->env();
  options.target = absl::StrCat("grpc://", master);
  body(options);
  servers.clear();
  env.reset();
}

void BM_ClusterStep(benchmark::State& state) {
  WithCluster(state, state.range(0), [&](const SessionOptions& options) {
    CreateAndRunSteps(state, options, CrossDeviceGraph(kTask0, kTask1));
  });
}

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 const std::string& device,
                 std::vector<std::string> inputs = {}) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (std::string& in : inputs) n->add_input(std::move(in));
  return n;
}

// v_<elements>: `elements` floats on task 1 (init: Assign(v, Fill(ones)));
// b = Identity(v) on task 0; sum = Sum(b) on task 0. (TensorFlow's servers
// keep a variable across sessions by name: each size has its own.)
GraphDef CrossTaskTransferGraph(int64_t elements) {
  GraphDef g;
  AttrValue float_type, int_type;
  float_type.set_type(DT_FLOAT);
  int_type.set_type(DT_INT32);
  const std::string var = absl::StrCat("v_", elements);
  NodeDef* v = AddNode(&g, var, "VariableV2", kTask1);
  (*v->mutable_attr())["dtype"] = float_type;
  (*v->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(elements);
  NodeDef* dims = AddNode(&g, "dims", "Const", kTask1);
  (*dims->mutable_attr())["dtype"] = int_type;
  TensorProto* d = (*dims->mutable_attr())["value"].mutable_tensor();
  d->set_dtype(DT_INT32);
  d->mutable_tensor_shape()->add_dim()->set_size(1);
  d->add_int_val(static_cast<int32_t>(elements));
  NodeDef* one = AddNode(&g, "one", "Const", kTask1);
  (*one->mutable_attr())["dtype"] = float_type;
  TensorProto* o = (*one->mutable_attr())["value"].mutable_tensor();
  o->set_dtype(DT_FLOAT);
  o->mutable_tensor_shape();
  o->add_float_val(1.0f);
  NodeDef* fill = AddNode(&g, "fill", "Fill", kTask1, {"dims", "one"});
  (*fill->mutable_attr())["T"] = float_type;
  NodeDef* init = AddNode(&g, "init", "Assign", kTask1, {var, "fill"});
  (*init->mutable_attr())["T"] = float_type;
  NodeDef* b = AddNode(&g, "b", "Identity", kTask0, {var});
  (*b->mutable_attr())["T"] = float_type;
  NodeDef* axis = AddNode(&g, "axis", "Const", kTask0);
  (*axis->mutable_attr())["dtype"] = int_type;
  TensorProto* a = (*axis->mutable_attr())["value"].mutable_tensor();
  a->set_dtype(DT_INT32);
  a->mutable_tensor_shape();
  a->add_int_val(0);
  NodeDef* sum = AddNode(&g, "sum", "Sum", kTask0, {"b", "axis"});
  (*sum->mutable_attr())["T"] = float_type;
  (*sum->mutable_attr())["Tidx"] = int_type;
  return g;
}

void BM_CrossTaskTransfer(benchmark::State& state) {
  const int64_t elements = state.range(0) / 4;
  WithCluster(state, state.range(1), [&](const SessionOptions& options) {
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(options, &session);
    if (s.ok()) s = session->Create(CrossTaskTransferGraph(elements));
    std::vector<Tensor> out;
    if (s.ok()) s = session->Run({}, {}, {"init"}, &out);
    if (s.ok()) s = session->Run({}, {}, {"b"}, &out);  // Warm-up.
    const double cpu_start = ProcessCpuSeconds();
    for (auto _ : state) {
      if (!s.ok()) break;
      s = session->Run({}, {}, {"b"}, &out);
    }
    SetPer(state, "per_run", "cpu_per_run", cpu_start);
    if (s.ok()) s = session->Run({}, {"sum"}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
    } else if (out.size() != 1 ||
               out[0].flat<float>()(0) != static_cast<float>(elements)) {
      state.SkipWithError("wrong sum of the transferred tensor");
    }
    if (session != nullptr) session->Close().IgnoreError();
    state.SetBytesProcessed(state.iterations() * elements * 4);
  });
}

BENCHMARK(BM_GrpcRecvTensor)
    ->ArgName("bytes")
    ->Arg(kLargeBytes)
    ->Arg(4)
    ->UseRealTime();
BENCHMARK(BM_TcpRecv)
    ->ArgName("bytes")
    ->Arg(kLargeBytes)
    ->Arg(4)
    ->UseRealTime();
BENCHMARK(BM_DistributedStep)->UseRealTime();
BENCHMARK(BM_LocalStep)->UseRealTime();
BENCHMARK(BM_ClusterStep)->ArgName("cluster")->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(BM_CrossTaskTransfer)
    ->ArgNames({"bytes", "cluster"})
    ->Args({kLargeBytes, 0})
    ->Args({kLargeBytes, 1})
    ->Args({4, 0})
    ->Args({4, 1})
    ->UseRealTime();

}  // namespace
}  // namespace stepflow::bench

// benchmarks/run_benchmarks.h's main, plus --tf_cluster=HOST:PORT,HOST:PORT.
int main(int argc, char** argv) {
  stepflow::bench::BenchmarkMainHooks hooks;
  hooks.take_flag = [](absl::string_view arg) {
    if (!absl::ConsumePrefix(&arg, "--tf_cluster=")) return false;
    stepflow::bench::TfCluster() = absl::StrSplit(arg, ',', absl::SkipEmpty());
    return true;
  };
  hooks.setup = []() -> absl::Status {
    const auto& cluster = stepflow::bench::TfCluster();
    if (!cluster.empty() && cluster.size() != 2) {
      return absl::InvalidArgumentError(
          "--tf_cluster wants two addresses (task 0, task 1)");
    }
    benchmark::AddCustomContext(
        "tf_cluster", cluster.empty() ? "none" : absl::StrJoin(cluster, ","));
    return absl::OkStatus();
  };
  return stepflow::bench::RunBenchmarks(argc, argv, hooks);
}
