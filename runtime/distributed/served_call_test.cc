#include "runtime/distributed/served_call.h"

#include <string>

#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "proto/master.pb.h"
#include "proto/worker.pb.h"

namespace stepflow {
namespace {

absl::Status Parse(const std::string& method, const std::string& bytes,
                   ServedCall* call) {
  google::protobuf::io::ArrayInputStream in(bytes.data(),
                                            static_cast<int>(bytes.size()));
  return ParseServedCall(method, &in, call);
}

TEST(ServedCallTest, ParsesTheRequestIntoTheMethodsTypes) {
  RunGraphRequest req;
  req.set_session_handle("s");
  req.set_step_id(42);
  ServedCall call;
  ASSERT_TRUE(
      Parse("WorkerService/RunGraph", req.SerializeAsString(), &call).ok());
  EXPECT_EQ(call.method, "WorkerService/RunGraph");
  auto* parsed = dynamic_cast<RunGraphRequest*>(call.request.get());
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(parsed->session_handle(), "s");
  EXPECT_EQ(parsed->step_id(), 42);
  auto* response = dynamic_cast<RunGraphResponse*>(call.response.get());
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->ByteSizeLong(), 0u);
}

TEST(ServedCallTest, EmptyBytesAreAnEmptyRequest) {
  ServedCall call;
  ASSERT_TRUE(Parse("MasterService/ListDevices", "", &call).ok());
  EXPECT_NE(dynamic_cast<ListDevicesRequest*>(call.request.get()), nullptr);
}

TEST(ServedCallTest, UnknownMethodIsUnimplementedAndLeavesNoMessages) {
  ServedCall call;
  absl::Status s = Parse("WorkerService/Nope", "", &call);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  EXPECT_EQ(call.request, nullptr);
  EXPECT_EQ(call.response, nullptr);
}

TEST(ServedCallTest, MalformedBytesAreInvalidArgumentNamingTheMethod) {
  ServedCall call;
  // A length-delimited field claiming more bytes than there are.
  absl::Status s = Parse("MasterService/RunStep", "\x0a\x10xy", &call);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("MasterService/RunStep"), std::string::npos);
  EXPECT_EQ(call.request, nullptr);
  EXPECT_TRUE(call.method.empty());
}

TEST(ServedCallTest, InvalidUtf8IsInvalidArgumentNamingTheFieldAndNotLogged) {
  // RunGraphRequest.session_handle (field 8 as in TensorFlow's
  // worker.proto, a string) holding 0xff 0xfe.
  const std::string bytes("\x42\x02\xff\xfe", 4);
  ServedCall call;
  ::testing::internal::CaptureStderr();
  absl::Status s = Parse("WorkerService/RunGraph", bytes, &call);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s;
  EXPECT_NE(s.message().find("session_handle"), std::string::npos) << s;
  EXPECT_EQ(logged, "");
  EXPECT_EQ(call.request, nullptr);
}

}  // namespace
}  // namespace stepflow
