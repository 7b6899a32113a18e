// TF_DeprecatedSession: GraphDefs sent with TF_ExtendGraph, runs and
// partial runs by endpoint name, device lists, reset, and misuse.
#include <string>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::GraphDefBytes;
using c_api_test::NewStatus;
using c_api_test::PlaceholderNode;
using c_api_test::StatusPtr;

TEST(CApiDeprecatedSessionTest, ExtendRunAndPartialRun) {
  StatusPtr status = NewStatus();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_DeprecatedSession* s = TF_NewDeprecatedSession(opts, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  const std::string bytes =
      GraphDefBytes(PlaceholderNode("x") + ConstFloatNode("c", 2) +
                    BinaryNode("AddV2", "z", "x", "c"));
  TF_ExtendGraph(s, bytes.data(), bytes.size(), status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  TF_ExtendGraph(s, "\xff\xff", 2, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);

  const char* feeds[] = {"x"};
  const char* fetches[] = {"z:0"};
  TF_Tensor* in = FloatScalar(5);
  TF_Tensor* out = nullptr;
  TF_Run(s, nullptr, feeds, &in, 1, fetches, &out, 1, nullptr, 0, nullptr,
         status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(FloatValue(out), 7);
  TF_DeleteTensor(out);

  const char* unknown[] = {"nope:0"};
  TF_Run(s, nullptr, nullptr, nullptr, 0, unknown, &out, 1, nullptr, 0, nullptr,
         status.get());
  EXPECT_NE(TF_GetCode(status.get()), TF_OK);
  EXPECT_EQ(out, nullptr);
  const char* null_name[] = {nullptr};
  TF_Run(s, nullptr, nullptr, nullptr, 0, null_name, &out, 1, nullptr, 0,
         nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);

  const char* handle = nullptr;
  TF_PRunSetup(s, feeds, 1, fetches, 1, nullptr, 0, &handle, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  TF_PRun(s, handle, feeds, &in, 1, fetches, &out, 1, nullptr, 0, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(FloatValue(out), 7);
  TF_DeleteTensor(out);
  TF_DeletePRunHandle(handle);
  TF_DeleteTensor(in);

  TF_DeviceList* devices = TF_DeprecatedSessionListDevices(s, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_GE(TF_DeviceListCount(devices), 1);
  TF_DeleteDeviceList(devices);

  TF_CloseDeprecatedSession(s, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  TF_DeleteDeprecatedSession(s, status.get());
  TF_Reset(opts, nullptr, 0, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  TF_DeleteSessionOptions(opts);

  TF_Run(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr, 0,
         nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_NewDeprecatedSession(nullptr, status.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace stepflow
