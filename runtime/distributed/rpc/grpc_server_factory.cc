// The "grpc" server factory (runtime/distributed/server_lib.h): a
// ServerDef's task served by a GrpcServer. Linking this registers it.
//
// The ServerDef's cluster (any job names, TensorFlow's rules) becomes the
// server's ClusterSpec and job_name/task_index its own task, which the
// cluster must have (InvalidArgument otherwise). TensorFlow's
// ServerDef.port (field 6, which our ServerDef does not declare; read from
// the unknown fields) overrides the port of the task's own address when
// non-zero. The GrpcServer is created
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
#include "runtime/distributed/rpc/cluster_spec.h"
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
  for (const JobDef& job : def.cluster().job()) {
    for (const auto& task : job.tasks()) {
      absl::Status s =
          options->cluster.AddTask(job.name(), task.first, task.second);
      if (!s.ok()) return s;
    }
  }
  options->job_name = def.job_name();
  options->task_index = def.task_index();
  std::string own;
  absl::Status s =
      options->cluster.FindTask(def.job_name(), def.task_index(), &own);
  if (!s.ok()) return s;
  if (const int port = PortOverride(def); port != 0) {
    // Rebuild the cluster with this task's port replaced.
    ClusterSpec cluster;
    for (const auto& [job, tasks] : options->cluster.jobs()) {
      for (const auto& [index, address] : tasks) {
        const bool self = job == def.job_name() && index == def.task_index();
        s = cluster.AddTask(
            job, index,
            self
                ? absl::StrCat(address.substr(0, address.rfind(':')), ":", port)
                : address);
        if (!s.ok()) return s;
      }
    }
    options->cluster = std::move(cluster);
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
    if (server_ != nullptr) return absl::StrCat("grpc://", server_->address());
    std::string own;  // The task is in the cluster: checked at creation.
    options_.cluster.FindTask(options_.job_name, options_.task_index, &own)
        .IgnoreError();
    return absl::StrCat("grpc://", own);
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
