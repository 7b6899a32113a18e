#include "runtime/distributed/rpc/grpc_session.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/common/session_factory.h"
#include "runtime/distributed/distributed_session.h"
#include "runtime/distributed/rpc/grpc_transport.h"
#include "runtime/distributed/rpc/tls_credentials.h"

namespace stepflow {
namespace {

constexpr char kScheme[] = "grpc://";

// Owns the transport and the Env that carries it; forwards to the
// DistributedSession. Declared member order makes the session go first.
class GrpcSession : public Session {
 public:
  GrpcSession(const Env& base, std::unique_ptr<GrpcTransport> transport)
      : transport_(std::move(transport)), env_(base) {
    env_.transport = transport_.get();
  }

  absl::Status Init(const SessionOptions& options, const std::string& master) {
    SessionOptions opts = options;
    opts.env = &env_;
    session_ = std::make_unique<DistributedSession>(opts, master);
    return absl::OkStatus();
  }

  ~GrpcSession() override {
    if (session_ != nullptr) session_->Close().IgnoreError();
    session_.reset();
  }

  absl::Status Create(const GraphDef& graph) override {
    return session_->Create(graph);
  }
  absl::Status Extend(const GraphDef& graph) override {
    return session_->Extend(graph);
  }
  absl::Status Run(const RunOptions& run_options, const FeedList& inputs,
                   const std::vector<std::string>& output_names,
                   const std::vector<std::string>& target_names,
                   std::vector<Tensor>* outputs,
                   RunMetadata* run_metadata) override {
    return session_->Run(run_options, inputs, output_names, target_names,
                         outputs, run_metadata);
  }
  using Session::Run;
  absl::Status PRunSetup(const std::vector<std::string>& input_names,
                         const std::vector<std::string>& output_names,
                         const std::vector<std::string>& target_names,
                         std::string* handle) override {
    return session_->PRunSetup(input_names, output_names, target_names, handle);
  }
  absl::Status PRun(const std::string& handle, const FeedList& inputs,
                    const std::vector<std::string>& output_names,
                    std::vector<Tensor>* outputs) override {
    return session_->PRun(handle, inputs, output_names, outputs);
  }
  absl::Status MakeCallable(const CallableOptions& options,
                            CallableHandle* handle) override {
    return session_->MakeCallable(options, handle);
  }
  absl::Status RunCallable(CallableHandle handle,
                           const std::vector<Tensor>& feed_tensors,
                           std::vector<Tensor>* fetch_tensors,
                           RunMetadata* run_metadata) override {
    return session_->RunCallable(handle, feed_tensors, fetch_tensors,
                                 run_metadata);
  }
  absl::Status ReleaseCallable(CallableHandle handle) override {
    return session_->ReleaseCallable(handle);
  }
  absl::Status ListDevices(std::vector<DeviceAttributes>* devices) override {
    return session_->ListDevices(devices);
  }
  absl::Status Close() override { return session_->Close(); }
  absl::Status Reset(const std::vector<std::string>& containers) override {
    return session_->Reset(containers);
  }

 private:
  std::unique_ptr<GrpcTransport> transport_;
  Env env_;
  std::unique_ptr<DistributedSession> session_;
};

class GrpcSessionFactory : public SessionFactory {
 public:
  bool AcceptsOptions(const SessionOptions& options) override {
    return absl::StartsWith(options.target, kScheme);
  }
  absl::Status NewSession(const SessionOptions& options,
                          std::unique_ptr<Session>* out) override {
    return NewGrpcSession(options, out);
  }
};

const bool registered =
    SessionFactory::Register("GRPC_SESSION", new GrpcSessionFactory);

}  // namespace

absl::Status NewGrpcSession(const SessionOptions& options,
                            std::unique_ptr<Session>* out) {
  if (!absl::StartsWith(options.target, kScheme) ||
      options.target.size() == sizeof(kScheme) - 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a grpc target: '", options.target, "' (want grpc://host:port)"));
  }
  if (options.env == nullptr || options.env->scheduler == nullptr) {
    return absl::InvalidArgumentError("a grpc session needs an Env");
  }
  std::string master;
  absl::Status s = MasterTaskFromTarget(options.target, &master);
  if (!s.ok()) return s;
  GrpcTransport::Options transport_options;
  s = LoadTlsConfig(options.tls.cert_file, options.tls.key_file,
                    options.tls.ca_file, &transport_options.tls);
  if (!s.ok()) return s;
  auto transport =
      GrpcTransport::Create(transport_options, options.env->scheduler);
  if (!transport.ok()) return transport.status();
  auto session =
      std::make_unique<GrpcSession>(*options.env, std::move(*transport));
  s = session->Init(options, master);
  if (!s.ok()) return s;
  *out = std::move(session);
  return absl::OkStatus();
}

}  // namespace stepflow
