#include "runtime/distributed/rpc/grpc_transport.h"

#include <chrono>
#include <new>
#include <set>
#include <utility>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message.h"
#include "runtime/distributed/methods.h"
#include "runtime/distributed/rpc/wire_coding.h"
#include "runtime/distributed/served_call.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

constexpr char kTaskMetadata[] = "sf-task";
// TensorFlow's service package: "/tensorflow.MasterService/RunStep" is what
// TensorFlow's own clients and workers call.
constexpr char kPackagePrefix[] = "/tensorflow.";

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

// One outstanding client call: what gRPC writes into until it completes.
struct ClientCall {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

}  // namespace

class GrpcTransport::Impl {
 public:
  Impl(const Options& options, Scheduler* scheduler)
      : options_(options),
        scheduler_(scheduler),
        service_(this),
        addresses_(options.addresses) {}

  void SetAddress(const std::string& task, const std::string& address) {
    absl::MutexLock l(&addresses_mu_);
    addresses_[task] = address;
  }

  ~Impl() {
    CancelAndAwaitCalls();
    if (server_ != nullptr) {
      // In-flight handler calls get a moment to finish, then are cancelled
      // (a no-op after Shutdown()).
      server_->Shutdown(std::chrono::system_clock::now() +
                        std::chrono::seconds(2));
      server_->Wait();
    }
  }

  void Shutdown(absl::Duration grace) {
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() +
                        absl::ToChronoNanoseconds(grace));
    }
    absl::MutexLock l(&calls_mu_);
    for (ClientCall* call : calls_) call->context.TryCancel();
  }

  absl::Status Start() {
    if (options_.max_message_bytes <= 0) {
      return absl::InvalidArgumentError("max_message_bytes must be positive");
    }
    if (options_.listen_address.empty()) return absl::OkStatus();
    grpc::ServerBuilder builder;
    builder.AddListeningPort(options_.listen_address,
                             MakeServerCredentials(options_.tls), &bound_port_);
    builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
    builder.SetMaxSendMessageSize(options_.max_message_bytes);
    // gRPC sets SO_REUSEPORT by default, so a second server on a port in
    // use would bind it too and silently take half its calls: one port,
    // one server.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.RegisterCallbackGenericService(&service_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || bound_port_ == 0) {
      server_.reset();
      return absl::UnavailableError(
          absl::StrCat("cannot listen on '", options_.listen_address,
                       "' (is the port in use, by another server perhaps?)"));
    }
    return absl::OkStatus();
  }

  int bound_port() const { return bound_port_; }

  void Call(absl::string_view task, absl::string_view method,
            const google::protobuf::Message& request,
            google::protobuf::Message* response, const CallOptions& options,
            DoneCallback done) {
    const std::string task_name(task);
    const std::string method_name(method);
    auto fail = [this, &done](absl::Status s) {
      scheduler_->Schedule(
          [done = std::move(done), s = std::move(s)] { done(s); });
    };
    std::string address;
    std::string target_task = task_name;
    bool known = false;
    {
      absl::MutexLock l(&addresses_mu_);
      auto it = addresses_.find(task_name);
      if (it != addresses_.end()) {
        address = it->second;
        known = true;
      }
    }
    if (!known && !absl::StartsWith(task_name, "/job:") &&
        absl::StrContains(task_name, ":")) {
      address = task_name;  // "host:port": whatever that server serves.
      target_task = kDefaultTask;
    } else if (!known) {
      fail(absl::UnavailableError(
          absl::StrCat(method_name, ": no address for task ", task_name)));
      return;
    }
    MethodInfo info;
    absl::Status s = LookupMethod(method_name, &info);
    if (!s.ok()) {
      fail(s);
      return;
    }
    auto call = std::make_shared<ClientCall>();
    if (!target_task.empty()) {
      call->context.AddMetadata(kTaskMetadata, target_task);
    }
    if (options.timeout_nanos > 0) {
      call->context.set_deadline(
          std::chrono::system_clock::now() +
          std::chrono::nanoseconds(options.timeout_nanos));
    }
    call->request = SerializeToByteBuffer(request);

    CancellationManager* cm = options.cancellation;
    CancellationToken token = 0;
    if (cm != nullptr) {
      token = cm->get_cancellation_token();
      if (!cm->RegisterCallback(token, [call] { call->context.TryCancel(); })) {
        fail(absl::CancelledError(
            absl::StrCat(method_name, " to ", task_name, " was cancelled")));
        return;
      }
    }
    const std::string where =
        absl::StrCat(method_name, " to ", task_name, " (", address, ")");
    Scheduler* scheduler = scheduler_;
    StartedCall(call.get());
    ClientCall* raw = call.get();
    Peer(address).stub->UnaryCall(
        &raw->context, absl::StrCat(kPackagePrefix, method_name),
        grpc::StubOptions(), &raw->request, &raw->response,
        [this, call = std::move(call), response, cm, token, where, scheduler,
         done = std::move(done)](grpc::Status grpc_status) mutable {
          absl::Status status = FromGrpc(grpc_status);
          bool parsed = true;
          if (status.ok()) {
            // Out of memory parsing fails this call; a bad_alloc left to
            // gRPC's callback wrapper would be swallowed and `done` never
            // run (a wedged caller).
            try {
              parsed = ParseFromByteBuffer(&call->response, response);
            } catch (const std::bad_alloc&) {
              status = absl::ResourceExhaustedError(
                  absl::StrCat(where, ": out of memory parsing the response"));
            }
          }
          if (!parsed) {
            status = absl::DataLossError(
                absl::StrCat(where, ": malformed response"));
          } else if (absl::IsUnavailable(status) ||
                     absl::IsDeadlineExceeded(status)) {
            const std::string why = ExplainConnectFailure(
                options_.tls, std::string(status.message()));
            status = absl::Status(
                status.code(), why.empty()
                                   ? absl::StrCat(where, ": ", status.message())
                                   : absl::StrCat(where, ": ", why, " (",
                                                  status.message(), ")"));
          }
          // The call (and with it the context's channel reference)
          // moves to the scheduler: gRPC's callback threads must never
          // drop the last reference to a channel.
          scheduler->Schedule([this, call = std::move(call), cm, token, status,
                               done = std::move(done)]() mutable {
            if (cm != nullptr) cm->DeregisterCallback(token);
            done(status);
            FinishedCall(call.get());
            call.reset();
          });
        });
  }

  // Outstanding client calls, so that destruction can cancel and await
  // them (their completions use this transport's scheduler and channels).
  void StartedCall(ClientCall* call) {
    absl::MutexLock l(&calls_mu_);
    calls_.insert(call);
  }
  void FinishedCall(ClientCall* call) {
    absl::MutexLock l(&calls_mu_);
    calls_.erase(call);
  }
  void CancelAndAwaitCalls() {
    absl::MutexLock l(&calls_mu_);
    for (ClientCall* call : calls_) call->context.TryCancel();
    calls_mu_.Await(absl::Condition(
        +[](std::set<ClientCall*>* calls) { return calls->empty(); }, &calls_));
  }

  absl::Status Serve(absl::string_view task, RpcHandler* handler) {
    absl::WriterMutexLock l(&handlers_mu_);
    auto [it, inserted] = handlers_.emplace(std::string(task), handler);
    if (!inserted) {
      return absl::AlreadyExistsError(
          absl::StrCat("task ", task, " is already served here"));
    }
    return absl::OkStatus();
  }

  void StopServing(absl::string_view task) {
    absl::WriterMutexLock l(&handlers_mu_);
    handlers_.erase(std::string(task));
  }

  // Hands a parsed request to the task's handler. Holding the reader lock
  // while Handle() starts means StopServing() cannot return while a call
  // is about to reach a handler.
  void Dispatch(const std::string& task, const std::string& method,
                const google::protobuf::Message& request,
                google::protobuf::Message* response,
                RpcHandler::DoneCallback done) {
    absl::ReaderMutexLock l(&handlers_mu_);
    auto it = handlers_.find(task);
    if (it == handlers_.end()) {
      done(absl::UnavailableError(
          absl::StrCat("task ", task.empty() ? "(default)" : task,
                       " is not served at this address")));
      return;
    }
    it->second->Handle(method, request, response, std::move(done));
  }

 private:
  // Serves one unary call arriving through the generic service.
  //
  // Two parties hold the reactor: gRPC (until OnDone) and the handler
  // (until it calls `done`, possibly long after the call was cancelled or
  // the server shut down: it may write the response until then). The
  // reactor is freed when both let go. The call is finished exactly once:
  // by the handler's answer, or at once when gRPC cancels the call (a
  // client deadline, a shutdown), so a slow handler never holds up a
  // shutdown and a late answer is dropped.
  class Reactor : public grpc::ServerGenericBidiReactor {
   public:
    Reactor(Impl* impl, grpc::GenericCallbackServerContext* context)
        : impl_(impl), context_(context) {
      StartRead(&request_bytes_);
    }

    void OnReadDone(bool ok) override {
      if (!ok) {
        FailBeforeDispatch(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                        "the call carried no request"));
        return;
      }
      std::string method = context_->method();
      if (!absl::StartsWith(method, kPackagePrefix)) {
        FailBeforeDispatch(
            grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                         absl::StrCat("unknown method ", method)));
        return;
      }
      method = method.substr(sizeof(kPackagePrefix) - 1);
      // Running out of memory while parsing or handling fails this call
      // with ResourceExhausted; left to gRPC's callback wrapper, the
      // bad_alloc would be swallowed and the call never finished (a
      // wedged server).
      try {
        // The same parse the server fuzzer drives (served_call.h).
        absl::Status s;
        {
          grpc::ProtoBufferReader reader(&request_bytes_);
          s = ParseServedCall(method, &reader, &call_);
        }
        if (!s.ok()) {
          FailBeforeDispatch(ToGrpc(s));
          return;
        }
        std::string task;
        const auto& metadata = context_->client_metadata();
        auto it = metadata.find(kTaskMetadata);
        if (it != metadata.end())
          task.assign(it->second.data(), it->second.size());
        impl_->Dispatch(task, call_.method, *call_.request,
                        call_.response.get(),
                        [this](const absl::Status& status) {
                          if (FirstAnswer()) {
                            FinishOnce(ToGrpc(status),
                                       /*with_response=*/true);
                          }
                          Unref();  // The handler's hold.
                        });
      } catch (const std::bad_alloc&) {
        // The handler may never answer now: answer for it, unless it
        // already did (then its answer stands). The handler's hold stays:
        // it may still hold `done` (and write the response) and release
        // the hold then; if it never does, this reactor is leaked, which
        // is safer than freeing what a handler may still touch.
        if (FirstAnswer()) {
          FinishOnce(
              grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                           absl::StrCat("out of memory handling ", method)),
              /*with_response=*/false);
        }
      }
    }

    void OnCancel() override {
      FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "call cancelled"),
                 /*with_response=*/false);
    }

    void OnDone() override { Unref(); }  // gRPC's hold.

   private:
    void FailBeforeDispatch(const grpc::Status& status) {
      FinishOnce(status, /*with_response=*/false);
      Unref();  // No handler will answer.
    }

    // True for the first of the handler's answer and the bad_alloc
    // path's: that one answers the call.
    bool FirstAnswer() {
      absl::MutexLock l(&mu_);
      if (answered_) return false;
      answered_ = true;
      return true;
    }

    void FinishOnce(const grpc::Status& status, bool with_response) {
      {
        absl::MutexLock l(&mu_);
        if (finished_) return;
        finished_ = true;
      }
      if (with_response && status.ok()) {
        // The handler is done with the response: the buffer may own it.
        try {
          response_bytes_ = EncodeResponse(std::move(call_.response));
        } catch (const std::bad_alloc&) {
          Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              "out of memory encoding the response"));
          return;
        }
        StartWriteAndFinish(&response_bytes_, grpc::WriteOptions(), status);
      } else {
        Finish(status);
      }
    }

    void Unref() {
      bool last = false;
      {
        absl::MutexLock l(&mu_);
        last = --refs_ == 0;
      }
      if (last) delete this;
    }

    Impl* const impl_;
    grpc::GenericCallbackServerContext* const context_;
    grpc::ByteBuffer request_bytes_;
    grpc::ByteBuffer response_bytes_;
    ServedCall call_;  // The parsed request and the handler's response.
    absl::Mutex mu_;
    bool finished_ ABSL_GUARDED_BY(mu_) = false;
    bool answered_ ABSL_GUARDED_BY(mu_) = false;
    int refs_ ABSL_GUARDED_BY(mu_) = 2;
  };

  class Service : public grpc::CallbackGenericService {
   public:
    explicit Service(Impl* impl) : impl_(impl) {}
    grpc::ServerGenericBidiReactor* CreateReactor(
        grpc::GenericCallbackServerContext* context) override {
      return new Reactor(impl_, context);
    }

   private:
    Impl* const impl_;
  };

  // A channel and the stub over it, one per address.
  struct PeerChannel {
    std::shared_ptr<grpc::Channel> channel;
    std::shared_ptr<grpc::GenericStub> stub;
  };

  PeerChannel NewPeerChannel(const std::string& address) const {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(options_.max_message_bytes);
    args.SetMaxSendMessageSize(options_.max_message_bytes);
    // The channel's own subchannel, so that a replacement channel (below)
    // connects afresh instead of sharing the old one's backoff.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    PeerChannel peer;
    peer.channel = grpc::CreateCustomChannel(
        address, MakeChannelCredentials(options_.tls), args);
    peer.stub = std::make_shared<grpc::GenericStub>(peer.channel);
    return peer;
  }

  // The address's channel. A channel whose connection failed sits in
  // TRANSIENT_FAILURE through gRPC's reconnect backoff, failing every
  // (fail-fast) call at once even after the peer is back; such a channel
  // is replaced, so that each call to a down peer tries to connect anew and
  // a restarted peer is reached by the first call after it listens.
  PeerChannel Peer(const std::string& address) {
    PeerChannel stale;
    PeerChannel peer;
    {
      absl::MutexLock l(&stubs_mu_);
      auto it = stubs_.find(address);
      if (it == stubs_.end()) {
        it = stubs_.emplace(address, NewPeerChannel(address)).first;
      } else if (it->second.channel->GetState(/*try_to_connect=*/false) ==
                 GRPC_CHANNEL_TRANSIENT_FAILURE) {
        stale = std::move(it->second);
        it->second = NewPeerChannel(address);
      }
      peer = it->second;
    }
    if (stale.channel != nullptr) {
      // Call() may run on a gRPC thread (a handler calling out), which must
      // never drop the last reference to a channel.
      scheduler_->Schedule([stale = std::move(stale)] {});
    }
    return peer;
  }

  const Options options_;
  Scheduler* const scheduler_;
  Service service_;
  std::unique_ptr<grpc::Server> server_;
  int bound_port_ = 0;

  absl::Mutex stubs_mu_;
  std::map<std::string, PeerChannel> stubs_ ABSL_GUARDED_BY(stubs_mu_);

  absl::Mutex addresses_mu_;
  std::map<std::string, std::string> addresses_ ABSL_GUARDED_BY(addresses_mu_);

  absl::Mutex calls_mu_;
  std::set<ClientCall*> calls_ ABSL_GUARDED_BY(calls_mu_);

  absl::Mutex handlers_mu_;
  std::map<std::string, RpcHandler*> handlers_ ABSL_GUARDED_BY(handlers_mu_);
};

absl::StatusOr<std::unique_ptr<GrpcTransport>> GrpcTransport::Create(
    const Options& options, Scheduler* scheduler) {
  if (scheduler == nullptr) {
    return absl::InvalidArgumentError("GrpcTransport needs a Scheduler");
  }
  auto impl = std::make_unique<Impl>(options, scheduler);
  absl::Status s = impl->Start();
  if (!s.ok()) return s;
  return std::unique_ptr<GrpcTransport>(new GrpcTransport(std::move(impl)));
}

GrpcTransport::GrpcTransport(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

GrpcTransport::~GrpcTransport() = default;

int GrpcTransport::bound_port() const { return impl_->bound_port(); }

void GrpcTransport::Shutdown(absl::Duration grace) { impl_->Shutdown(grace); }

void GrpcTransport::SetAddress(const std::string& task,
                               const std::string& address) {
  impl_->SetAddress(task, address);
}

void GrpcTransport::Call(absl::string_view task, absl::string_view method,
                         const google::protobuf::Message& request,
                         google::protobuf::Message* response,
                         const CallOptions& options, DoneCallback done) {
  impl_->Call(task, method, request, response, options, std::move(done));
}

absl::Status GrpcTransport::Serve(absl::string_view task, RpcHandler* handler) {
  return impl_->Serve(task, handler);
}

void GrpcTransport::StopServing(absl::string_view task) {
  impl_->StopServing(task);
}

}  // namespace stepflow
