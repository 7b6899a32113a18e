// TF_NewServer .. TF_DeleteServer over the gRPC server (the "grpc" factory
// linked in), a session on its target, and the kernel registry as a
// KernelList (TF_GetAllRegisteredKernels, TF_GetRegisteredKernelsForOp).
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "google/protobuf/unknown_field_set.h"
#include "proto/cluster.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::NewStatus;
using c_api_test::StatusPtr;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

std::string LocalServerDef(const std::string& job,
                           const std::string& protocol = "grpc") {
  ServerDef def;
  JobDef* j = def.mutable_cluster()->add_job();
  j->set_name(job);
  (*j->mutable_tasks())[0] = "127.0.0.1:0";
  def.set_job_name(job);
  def.set_task_index(0);
  def.set_protocol(protocol);
  return def.SerializeAsString();
}

TEST(CApiServerTest, ServesSessionsUntilStopped) {
  StatusPtr s = NewStatus();
  // "localhost": the job TensorFlow's local servers use.
  const std::string def = LocalServerDef("localhost");
  TF_Server* server = TF_NewServer(def.data(), def.size(), s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  TF_ServerStart(server, s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  const std::string target = TF_ServerTarget(server);
  EXPECT_TRUE(absl::StartsWith(target, "grpc://127.0.0.1:")) << target;
  EXPECT_NE(target, "grpc://127.0.0.1:0");  // The bound port.

  // A graph run through the server's master.
  TF_Graph* g = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(g, "Const", "c");
  TF_Tensor* t = FloatScalar(2.5f);
  TF_SetAttrTensor(d, "value", t, s.get());
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_Operation* c = TF_FinishOperation(d, s.get());
  d = TF_NewOperation(g, "Neg", "neg");
  TF_AddInput(d, TF_Output{c, 0});
  TF_Operation* neg = TF_FinishOperation(d, s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_SetTarget(opts, target.c_str());
  TF_Session* session = TF_NewSession(g, opts, s.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  TF_Output fetch{neg, 0};
  TF_Tensor* out = nullptr;
  TF_SessionRun(session, nullptr, nullptr, nullptr, 0, &fetch, &out, 1, nullptr,
                0, nullptr, s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  EXPECT_EQ(FloatValue(out), -2.5f);
  TF_DeleteTensor(out);
  TF_CloseSession(session, s.get());
  TF_DeleteSession(session, s.get());
  TF_DeleteGraph(g);

  // Join blocks until Stop.
  bool joined = false;
  std::thread joiner([&] {
    StatusPtr js = NewStatus();
    TF_ServerJoin(server, js.get());
    EXPECT_EQ(TF_GetCode(js.get()), TF_OK);
    joined = true;
  });
  TF_ServerStop(server, s.get());
  EXPECT_EQ(TF_GetCode(s.get()), TF_OK) << TF_Message(s.get());
  joiner.join();
  EXPECT_TRUE(joined);
  TF_ServerStart(server, s.get());  // Stopped for good.
  EXPECT_EQ(TF_GetCode(s.get()), TF_FAILED_PRECONDITION);
  TF_DeleteServer(server);
}

TEST(CApiServerTest, Errors) {
  StatusPtr s = NewStatus();
  const std::string junk = "\xff\xff\xff";
  EXPECT_EQ(TF_NewServer(junk.data(), junk.size(), s.get()), nullptr);
  EXPECT_EQ(TF_GetCode(s.get()), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s.get()), "Could not parse ServerDef");

  const std::string other = LocalServerDef("worker", "carrier_pigeon");
  EXPECT_EQ(TF_NewServer(other.data(), other.size(), s.get()), nullptr);
  EXPECT_EQ(TF_GetCode(s.get()), TF_NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(TF_Message(s.get()), "carrier_pigeon"));

  // The server's own task must be in the cluster.
  ServerDef def;
  def.ParseFromString(LocalServerDef("localhost"));
  def.set_task_index(3);
  const std::string missing = def.SerializeAsString();
  EXPECT_EQ(TF_NewServer(missing.data(), missing.size(), s.get()), nullptr);
  EXPECT_EQ(TF_GetCode(s.get()), TF_INVALID_ARGUMENT);
}

// The (op, device_type, constraint names) of each KernelDef in a
// serialized KernelList.
struct Kernel {
  std::string op, device;
  std::vector<std::string> constraints;
};
std::vector<Kernel> ParseKernelList(const TF_Buffer* buf) {
  UnknownFieldSet list;
  EXPECT_TRUE(list.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  std::vector<Kernel> kernels;
  for (int i = 0; i < list.field_count(); ++i) {
    EXPECT_EQ(list.field(i).number(), 1);
    UnknownFieldSet def;
    EXPECT_TRUE(def.ParseFromString(list.field(i).length_delimited()));
    Kernel k;
    for (int f = 0; f < def.field_count(); ++f) {
      const UnknownField& field = def.field(f);
      if (field.number() == 1) k.op = field.length_delimited();
      if (field.number() == 2) k.device = field.length_delimited();
      if (field.number() == 3) {
        UnknownFieldSet c;
        EXPECT_TRUE(c.ParseFromString(field.length_delimited()));
        k.constraints.push_back(c.field(0).length_delimited());
      }
    }
    kernels.push_back(k);
  }
  return kernels;
}

TEST(CApiKernelsTest, RegisteredKernelsAsKernelLists) {
  StatusPtr s = NewStatus();
  TF_Buffer* matmul = TF_GetRegisteredKernelsForOp("MatMul", s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK);
  std::vector<Kernel> kernels = ParseKernelList(matmul);
  ASSERT_FALSE(kernels.empty());
  for (const Kernel& k : kernels) {
    EXPECT_EQ(k.op, "MatMul");
    EXPECT_EQ(k.constraints, std::vector<std::string>{"T"});
  }
  EXPECT_EQ(kernels[0].device, "CPU");
  TF_DeleteBuffer(matmul);

  TF_Buffer* none = TF_GetRegisteredKernelsForOp("NoSuchOp", s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK);
  EXPECT_EQ(none->length, 0u);
  TF_DeleteBuffer(none);

  TF_Buffer* all = TF_GetAllRegisteredKernels(s.get());
  ASSERT_EQ(TF_GetCode(s.get()), TF_OK);
  std::vector<Kernel> every = ParseKernelList(all);
  EXPECT_GT(every.size(), 300u);
  int matmuls = 0;
  for (const Kernel& k : every) matmuls += k.op == "MatMul";
  EXPECT_EQ(matmuls, static_cast<int>(kernels.size()));
  TF_DeleteBuffer(all);
}

}  // namespace
}  // namespace stepflow
