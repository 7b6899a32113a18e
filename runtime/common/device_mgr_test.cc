#include "runtime/common/device_mgr.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/device.h"
#include "runtime/env/real/random.h"

namespace stepflow {
namespace {

constexpr char kPrefix[] = "/job:localhost/replica:0/task:0";

class DeviceMgrTest : public ::testing::Test {
 protected:
  DeviceMgrTest() : random_(17) { env_.random = &random_; }

  std::unique_ptr<DeviceMgr> MakeMgr(int cpus) {
    std::vector<std::unique_ptr<Device>> devices;
    absl::Status s = AddCpuDevices(&env_, cpus, kPrefix, &devices);
    EXPECT_TRUE(s.ok()) << s;
    return std::make_unique<DeviceMgr>(std::move(devices));
  }

  SeededRandom random_;
  Env env_;
};

TEST_F(DeviceMgrTest, AddCpuDevicesNamesAndAttributes) {
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(AddCpuDevices(&env_, 3, kPrefix, &devices).ok());
  ASSERT_EQ(devices.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const DeviceAttributes& a = devices[i]->attributes();
    EXPECT_EQ(a.name(), "/job:localhost/replica:0/task:0/device:CPU:" +
                            std::to_string(i));
    EXPECT_EQ(a.device_type(), "CPU");
    EXPECT_EQ(devices[i]->device_type(), "CPU");
    EXPECT_EQ(a.memory_limit(), kCpuDeviceMemoryLimit);
    EXPECT_NE(a.incarnation(), 0u);
    EXPECT_EQ(devices[i]->env(), &env_);
    EXPECT_NE(devices[i]->resource_manager(), nullptr);
    EXPECT_TRUE(devices[i]->parsed_name().has_id);
    EXPECT_EQ(devices[i]->parsed_name().id, i);
  }
  EXPECT_NE(devices[0]->incarnation(), devices[1]->incarnation());
}

TEST_F(DeviceMgrTest, IncarnationsFollowTheSeed) {
  SeededRandom r1(5), r2(5);
  Env e1, e2;
  e1.random = &r1;
  e2.random = &r2;
  std::vector<std::unique_ptr<Device>> d1, d2;
  ASSERT_TRUE(AddCpuDevices(&e1, 2, kPrefix, &d1).ok());
  ASSERT_TRUE(AddCpuDevices(&e2, 2, kPrefix, &d2).ok());
  EXPECT_EQ(d1[0]->incarnation(), d2[0]->incarnation());
  EXPECT_EQ(d1[1]->incarnation(), d2[1]->incarnation());
}

TEST_F(DeviceMgrTest, AddCpuDevicesRejectsBadInput) {
  std::vector<std::unique_ptr<Device>> devices;
  EXPECT_EQ(AddCpuDevices(&env_, -1, kPrefix, &devices).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AddCpuDevices(&env_, 1, "/job:localhost", &devices).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AddCpuDevices(&env_, 1, "not a name", &devices).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      AddCpuDevices(&env_, 1, std::string(kPrefix) + "/device:CPU:0", &devices)
          .code(),
      absl::StatusCode::kInvalidArgument);
  Env no_random;
  EXPECT_EQ(AddCpuDevices(&no_random, 1, kPrefix, &devices).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(devices.empty());
  EXPECT_TRUE(AddCpuDevices(&env_, 0, kPrefix, &devices).ok());
  EXPECT_TRUE(devices.empty());
}

TEST_F(DeviceMgrTest, LookupAcceptsEverySpelling) {
  auto mgr = MakeMgr(2);
  Device* cpu1 = nullptr;
  ASSERT_TRUE(
      mgr->LookupDevice("/job:localhost/replica:0/task:0/device:CPU:1", &cpu1)
          .ok());
  ASSERT_NE(cpu1, nullptr);
  EXPECT_EQ(cpu1->name(), "/job:localhost/replica:0/task:0/device:CPU:1");
  for (const char* spelling :
       {"/cpu:1", "/CPU:1", "/device:CPU:1", "/device:cpu:1",
        "/job:localhost/cpu:1", "/job:localhost/device:CPU:1",
        "/job:localhost/replica:0/cpu:1",
        "/job:localhost/replica:0/task:0/cpu:1"}) {
    Device* d = nullptr;
    absl::Status s = mgr->LookupDevice(spelling, &d);
    EXPECT_TRUE(s.ok()) << spelling << ": " << s;
    EXPECT_EQ(d, cpu1) << spelling;
  }
}

TEST_F(DeviceMgrTest, LookupUnknownListsDevices) {
  auto mgr = MakeMgr(2);
  for (const char* bad :
       {"/cpu:7", "/gpu:0", "/job:other/cpu:0", "", "garbage", "/job:localhost",
        "/device:CPU:*", "/job:localhost/task:3/cpu:0"}) {
    Device* d = nullptr;
    absl::Status s = mgr->LookupDevice(bad, &d);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << bad;
    EXPECT_TRUE(absl::StrContains(s.message(), "Unknown device")) << s;
    EXPECT_TRUE(
        absl::StrContains(s.message(),
                          "/job:localhost/replica:0/task:0/device:CPU:0, "
                          "/job:localhost/replica:0/task:0/device:CPU:1"))
        << s;
    EXPECT_EQ(d, nullptr);
  }
}

TEST_F(DeviceMgrTest, LookupAmbiguousPartialName) {
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(
      AddCpuDevices(&env_, 1, "/job:a/replica:0/task:0", &devices).ok());
  ASSERT_TRUE(
      AddCpuDevices(&env_, 1, "/job:b/replica:0/task:0", &devices).ok());
  DeviceMgr mgr(std::move(devices));
  Device* d = nullptr;
  EXPECT_EQ(mgr.LookupDevice("/cpu:0", &d).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(mgr.LookupDevice("/job:b/cpu:0", &d).ok());
  EXPECT_EQ(d->name(), "/job:b/replica:0/task:0/device:CPU:0");
}

TEST_F(DeviceMgrTest, ListDevicesSortedAndClientDevice) {
  // Built out of order: listing is still by name.
  std::vector<std::unique_ptr<Device>> devices;
  for (int id : {2, 0, 1}) {
    devices.push_back(std::make_unique<CpuDevice>(
        &env_, Device::BuildDeviceAttributes(
                   Device::FullName(kPrefix, "CPU", id), "CPU", 1, 100 + id)));
  }
  DeviceMgr mgr(std::move(devices));
  std::vector<Device*> list = mgr.ListDevices();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(mgr.NumDevices(), 3);
  EXPECT_EQ(list[0]->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(list[1]->name(), "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(list[2]->name(), "/job:localhost/replica:0/task:0/device:CPU:2");
  ASSERT_NE(mgr.ClientDevice(), nullptr);
  EXPECT_EQ(mgr.ClientDevice(), list[0]);

  std::vector<DeviceAttributes> attrs;
  mgr.ListDeviceAttributes(&attrs);
  ASSERT_EQ(attrs.size(), 3u);
  EXPECT_EQ(attrs[0].incarnation(), 100u);
  EXPECT_EQ(attrs[2].incarnation(), 102u);
  EXPECT_EQ(attrs[1].name(), list[1]->name());
}

TEST_F(DeviceMgrTest, NoClientDeviceWithoutCpu0) {
  std::vector<std::unique_ptr<Device>> devices;
  devices.push_back(std::make_unique<CpuDevice>(
      &env_, Device::BuildDeviceAttributes(Device::FullName(kPrefix, "CPU", 3),
                                           "CPU", 1, 1)));
  DeviceMgr mgr(std::move(devices));
  EXPECT_EQ(mgr.ClientDevice(), nullptr);
}

class Counter : public ResourceBase {
 public:
  std::string DebugString() const override { return "Counter"; }
};

TEST_F(DeviceMgrTest, ClearContainers) {
  auto mgr = MakeMgr(2);
  for (Device* d : mgr->ListDevices()) {
    ResourceMgr* rm = d->resource_manager();
    ASSERT_TRUE(rm->Create(rm->default_container(), "a", new Counter).ok());
    ASSERT_TRUE(rm->Create("other", "b", new Counter).ok());
    EXPECT_EQ(rm->NumResources(), 2u);
  }
  mgr->ClearContainers({"other"});
  for (Device* d : mgr->ListDevices()) {
    EXPECT_EQ(d->resource_manager()->NumResources(), 1u);
  }
  mgr->ClearContainers({});  // Default container.
  for (Device* d : mgr->ListDevices()) {
    EXPECT_EQ(d->resource_manager()->NumResources(), 0u);
  }
}

TEST_F(DeviceMgrTest, DebugString) {
  auto mgr = MakeMgr(1);
  Device* d = mgr->ClientDevice();
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(absl::StrContains(d->DebugString(), d->name()));
  EXPECT_TRUE(absl::StrContains(d->DebugString(), "CPU"));
}

}  // namespace
}  // namespace stepflow
