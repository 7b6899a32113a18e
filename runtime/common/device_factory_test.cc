#include "runtime/common/device_factory.h"

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(DeviceFactoryTest, RunsFactoriesInTypeOrderAndNamesFailures) {
  std::vector<std::string> calls;
  RegisterDeviceFactory(
      "ZZ_TEST", [&calls](const SessionOptions&, const std::string& prefix,
                          std::vector<std::unique_ptr<Device>>*) {
        calls.push_back("ZZ:" + prefix);
        return absl::OkStatus();
      });
  RegisterDeviceFactory(
      "AA_TEST", [&calls](const SessionOptions&, const std::string& prefix,
                          std::vector<std::unique_ptr<Device>>*) {
        calls.push_back("AA:" + prefix);
        return absl::OkStatus();
      });
  std::vector<std::unique_ptr<Device>> devices;
  SessionOptions options;
  ASSERT_TRUE(
      AddRegisteredDevices(options, "/job:a/replica:0/task:0", &devices).ok());
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], "AA:/job:a/replica:0/task:0");
  EXPECT_EQ(calls[1], "ZZ:/job:a/replica:0/task:0");

  RegisterDeviceFactory("ZZ_TEST", [](const SessionOptions&, const std::string&,
                                      std::vector<std::unique_ptr<Device>>*) {
    return absl::InternalError("no luck");
  });
  absl::Status s =
      AddRegisteredDevices(options, "/job:a/replica:0/task:0", &devices);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("ZZ_TEST"), std::string::npos);
  EXPECT_NE(s.message().find("no luck"), std::string::npos);
  // Replace with a no-op so nothing else in this binary sees the failure.
  RegisterDeviceFactory("ZZ_TEST", [](const SessionOptions&, const std::string&,
                                      std::vector<std::unique_ptr<Device>>*) {
    return absl::OkStatus();
  });
}

}  // namespace
}  // namespace stepflow
