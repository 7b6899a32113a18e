// c_api_extension.h: the rendezvous factory reaches the session's steps and
// SessionFromHandle returns the session behind the handle.
#include "runtime/c/c_api_extension.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"
#include "runtime/common/intra_process_rendezvous.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::ImportText;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;

TEST(CApiExtensionTest, RendezvousFactoryMakesEveryStepsRendezvous) {
  TF_Graph* graph = TF_NewGraph();
  ASSERT_EQ(ImportText(graph, PlaceholderNode("x") + ConstFloatNode("c", 2) +
                                  BinaryNode("AddV2", "z", "x", "c")),
            TF_OK);
  TF_SessionOptions* opts = TF_NewSessionOptions();
  std::vector<int64_t> steps;
  SetSessionOptionsRendezvousFactory(opts, [&steps](int64_t step_id) {
    steps.push_back(step_id);
    return new IntraProcessRendezvous();
  });
  auto status = NewStatus();
  TF_Session* session = TF_NewSession(graph, opts, status.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());

  for (float x : {1.0f, 5.0f}) {
    TF_Output feed{TF_GraphOperationByName(graph, "x"), 0};
    TF_Output fetch{TF_GraphOperationByName(graph, "z"), 0};
    TF_Tensor* in = FloatScalar(x);
    TF_Tensor* out = nullptr;
    TF_SessionRun(session, nullptr, &feed, &in, 1, &fetch, &out, 1, nullptr, 0,
                  nullptr, status.get());
    TF_DeleteTensor(in);
    ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
    EXPECT_EQ(FloatValue(out), x + 2);
    TF_DeleteTensor(out);
  }
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[0], steps[1]);

  TF_DeleteSession(session, status.get());
  TF_DeleteGraph(graph);
}

TEST(CApiExtensionTest, SessionFromHandleIsTheSessionBehindIt) {
  EXPECT_EQ(SessionFromHandle(nullptr), nullptr);
  TF_Graph* graph = TF_NewGraph();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  auto status = NewStatus();
  TF_Session* session = TF_NewSession(graph, opts, status.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());

  Session* cc = SessionFromHandle(session);
  ASSERT_NE(cc, nullptr);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(cc->ListDevices(&devices).ok());
  TF_DeviceList* list = TF_SessionListDevices(session, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_EQ(static_cast<int>(devices.size()), TF_DeviceListCount(list));
  TF_DeleteDeviceList(list);
  // Closed, the session is still the handle's until TF_DeleteSession.
  TF_CloseSession(session, status.get());
  EXPECT_EQ(SessionFromHandle(session), cc);

  TF_DeleteSession(session, status.get());
  TF_DeleteGraph(graph);
}

}  // namespace
}  // namespace stepflow
