// The "grpc" server factory (runtime/distributed/server_lib.h): a
// ServerDef's task served by a GrpcServer. Linking this registers it.
//
// The ServerDef must name job "worker" (GrpcServer's only job) with the
// task's address among its tasks; the tasks' addresses, ordered by index,
// are the cluster. TensorFlow's ServerDef.port (field 6, which our
// ServerDef does not declare; read from the unknown fields) overrides the
// port of the task's own address when non-zero. The GrpcServer is created
// (bound and serving) by Start; Stop shuts it down with a 2 s grace and
// releases Join.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "google/protobuf/unknown_field_set.h"
#include "proto/cluster.pb.h"
#include "runtime/distributed/rpc/grpc_server.h"
#include "runtime/distributed/server_lib.h"

namespace stepflow {
namespace {

// TensorFlow's ServerDef field 6 (int32 port), if set.
int PortOverride(const ServerDef& def) {
  const google::protobuf::UnknownFieldSet& unknown =
      def.GetReflection()->GetUnknownFields(def);
  int port = 0;
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& f = unknown.field(i);
    if (f.number() == 6 &&
        f.type() == google::protobuf::UnknownField::TYPE_VARINT) {
      port = static_cast<int>(f.varint());
    }
  }
  return port;
}

absl::Status OptionsFromServerDef(const ServerDef& def,
                                  GrpcServer::Options* options) {
  if (def.job_name() != "worker") {
    return absl::InvalidArgumentError(absl::StrCat(
        "ServerDef job_name '", def.job_name(),
        "' is not supported: this runtime's gRPC servers serve job 'worker'"));
  }
  const JobDef* job = nullptr;
  for (const JobDef& j : def.cluster().job()) {
    if (j.name() == def.job_name()) job = &j;
  }
  if (job == nullptr || job->tasks().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ServerDef's cluster has no tasks for job '", def.job_name(), "'"));
  }
  const std::map<int, std::string> tasks(job->tasks().begin(),
                                         job->tasks().end());
  int expected = 0;
  for (const auto& task : tasks) {
    if (task.first != expected++) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ServerDef's job '", def.job_name(),
          "' must number its tasks 0..n-1; task ", expected - 1, " missing"));
    }
    options->worker_addresses.push_back(task.second);
  }
  if (def.task_index() < 0 ||
      def.task_index() >= static_cast<int>(tasks.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("ServerDef task_index ", def.task_index(),
                     " is not a task of job '", def.job_name(), "'"));
  }
  options->task_index = def.task_index();
  if (const int port = PortOverride(def); port != 0) {
    std::string& own = options->worker_addresses[def.task_index()];
    own = absl::StrCat(own.substr(0, own.rfind(':')), ":", port);
  }
  return absl::OkStatus();
}

class GrpcServerAdapter : public ServerInterface {
 public:
  explicit GrpcServerAdapter(GrpcServer::Options options)
      : options_(std::move(options)) {}
  ~GrpcServerAdapter() override { Stop().IgnoreError(); }

  absl::Status Start() override {
    absl::MutexLock l(&mu_);
    if (stopped_) {
      return absl::FailedPreconditionError(
          "The server has been stopped and cannot be started again");
    }
    if (server_ != nullptr) return absl::OkStatus();
    return GrpcServer::Create(options_, &server_);
  }

  absl::Status Stop() override {
    std::unique_ptr<GrpcServer> server;
    {
      absl::MutexLock l(&mu_);
      if (stopped_) return absl::OkStatus();
      server = std::move(server_);
    }
    if (server != nullptr) server->Shutdown(absl::Seconds(2));
    server.reset();
    absl::MutexLock l(&mu_);
    stopped_ = true;
    return absl::OkStatus();
  }

  absl::Status Join() override {
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(&stopped_));
    return absl::OkStatus();
  }

  std::string target() const override {
    absl::MutexLock l(&mu_);
    return absl::StrCat("grpc://",
                        server_ != nullptr
                            ? server_->address()
                            : options_.worker_addresses[options_.task_index]);
  }

 private:
  const GrpcServer::Options options_;
  mutable absl::Mutex mu_;
  std::unique_ptr<GrpcServer> server_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

[[maybe_unused]] const bool registered = RegisterServerFactory(
    "grpc", [](const ServerDef& def, std::unique_ptr<ServerInterface>* out) {
      GrpcServer::Options options;
      absl::Status s = OptionsFromServerDef(def, &options);
      if (!s.ok()) return s;
      *out = std::make_unique<GrpcServerAdapter>(std::move(options));
      return absl::OkStatus();
    });

}  // namespace
}  // namespace stepflow
