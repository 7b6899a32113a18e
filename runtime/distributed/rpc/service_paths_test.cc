// The RPC method table (runtime/distributed/methods.h) is exactly the
// services declared in proto/distributed_services.proto — TensorFlow's
// tensorflow.MasterService and tensorflow.WorkerService — with the same
// request and response types, and a GrpcTransport server answers a client
// that calls those paths the way TensorFlow's own stubs do: the
// gRPC-generated stub of the service, with no stepflow metadata.
#include <memory>
#include <set>
#include <string>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "proto/distributed_services.grpc.pb.h"
#include "runtime/distributed/methods.h"
#include "runtime/distributed/rpc/grpc_transport.h"
#include "runtime/env/real/real_env.h"

namespace stepflow {
namespace {

TEST(ServicePathsTest, MethodTableIsTheDeclaredServices) {
  // Nothing else here refers to distributed_services.pb.cc, so the static
  // link would drop it and its descriptors would never reach the pool: a
  // reference the compiler cannot fold keeps it in.
  const void* volatile keep =
      &descriptor_table_proto_2fdistributed_5fservices_2eproto;
  (void)keep;
  std::set<std::string> declared;
  for (const char* service :
       {"tensorflow.MasterService", "tensorflow.WorkerService"}) {
    const google::protobuf::ServiceDescriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            service);
    ASSERT_NE(d, nullptr) << service;
    for (int i = 0; i < d->method_count(); ++i) {
      const google::protobuf::MethodDescriptor* m = d->method(i);
      const std::string name = absl::StrCat(d->name(), "/", m->name());
      declared.insert(name);
      MethodInfo info;
      ASSERT_TRUE(LookupMethod(name, &info).ok()) << name;
      EXPECT_EQ(info.request_prototype->GetDescriptor(), m->input_type())
          << name;
      EXPECT_EQ(info.response_prototype->GetDescriptor(), m->output_type())
          << name;
    }
  }
  const std::vector<std::string> table = ListMethods();
  EXPECT_EQ(std::set<std::string>(table.begin(), table.end()), declared);
  // The methods TensorFlow's GrpcSession and masters call are all there.
  for (const char* m :
       {"MasterService/MakeCallable", "MasterService/RunCallable",
        "MasterService/ReleaseCallable", "WorkerService/CleanupAll",
        "WorkerService/Logging", "WorkerService/Tracing"}) {
    EXPECT_EQ(declared.count(m), 1) << m;
  }
}

// Answers ListDevices with one device, and records the method it got.
class ListDevicesHandler : public RpcHandler {
 public:
  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message* response, DoneCallback done) override {
    method_ = std::string(method);
    if (method != "MasterService/ListDevices") {
      done(absl::UnimplementedError(std::string(method)));
      return;
    }
    static_cast<ListDevicesResponse*>(response)->add_remote_device()->set_name(
        "/job:worker/replica:0/task:0/device:CPU:0");
    done(absl::OkStatus());
  }
  std::string method_;
};

TEST(ServicePathsTest, GeneratedStubReachesTheDefaultHandler) {
  auto env = RealEnv::Create(2);
  GrpcTransport::Options options;
  options.listen_address = "127.0.0.1:0";
  auto server = GrpcTransport::Create(options, env->env()->scheduler);
  ASSERT_TRUE(server.ok()) << server.status();
  ListDevicesHandler handler;
  ASSERT_TRUE((*server)->Serve(GrpcTransport::kDefaultTask, &handler).ok());

  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->bound_port()),
                          grpc::InsecureChannelCredentials());
  auto stub = tensorflow::MasterService::NewStub(channel);
  grpc::ClientContext context;
  ListDevicesRequest req;
  ListDevicesResponse resp;
  grpc::Status s = stub->ListDevices(&context, req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(handler.method_, "MasterService/ListDevices");
  ASSERT_EQ(resp.remote_device_size(), 1);
  EXPECT_EQ(resp.remote_device(0).name(),
            "/job:worker/replica:0/task:0/device:CPU:0");

  // A method the handler refuses comes back with its code.
  auto worker = tensorflow::WorkerService::NewStub(channel);
  grpc::ClientContext context2;
  TracingRequest treq;
  TracingResponse tresp;
  s = worker->Tracing(&context2, treq, &tresp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(handler.method_, "WorkerService/Tracing");
  (*server)->StopServing(GrpcTransport::kDefaultTask);
}

}  // namespace
}  // namespace stepflow
