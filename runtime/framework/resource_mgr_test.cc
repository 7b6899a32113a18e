#include "runtime/framework/resource_mgr.h"

#include <string>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

class Counter : public ResourceBase {
 public:
  explicit Counter(int* live) : live_(live) { ++*live_; }
  ~Counter() override { --*live_; }
  std::string DebugString() const override { return "Counter"; }
  int value = 0;

 private:
  int* live_;
};

class Other : public ResourceBase {
 public:
  std::string DebugString() const override { return "Other"; }
};

TEST(ResourceMgrTest, CreateLookupRefcounts) {
  int live = 0;
  ResourceMgr rm;
  EXPECT_EQ(rm.default_container(), "localhost");
  ASSERT_TRUE(rm.Create("c", "n", new Counter(&live)).ok());
  EXPECT_EQ(live, 1);
  Counter* found = nullptr;
  ASSERT_TRUE(rm.Lookup("c", "n", &found).ok());
  found->value = 7;
  EXPECT_FALSE(found->RefCountIsOne());  // Manager + us.
  found->Unref();
  Counter* again = nullptr;
  ASSERT_TRUE(rm.Lookup("c", "n", &again).ok());
  EXPECT_EQ(again->value, 7);
  // Deleting from the manager leaves our reference valid.
  ASSERT_TRUE(rm.Delete<Counter>("c", "n").ok());
  EXPECT_EQ(live, 1);
  EXPECT_TRUE(again->RefCountIsOne());
  again->Unref();
  EXPECT_EQ(live, 0);
}

TEST(ResourceMgrTest, Errors) {
  int live = 0;
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("c", "n", new Counter(&live)).ok());
  absl::Status s = rm.Create("c", "n", new Counter(&live));
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(live, 1);  // The rejected resource was unreffed.
  Counter* c = nullptr;
  s = rm.Lookup("c", "missing", &c);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s;
  EXPECT_NE(s.message().find("c"), std::string::npos) << s;
  // Same name, different type: a different resource.
  Other* o = nullptr;
  EXPECT_EQ(rm.Lookup("c", "n", &o).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(rm.Delete<Other>("c", "n").code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(rm.Create("c", "n", new Other()).ok());
  EXPECT_EQ(rm.NumResources(), 2u);
}

TEST(ResourceMgrTest, LookupOrCreate) {
  int live = 0;
  ResourceMgr rm;
  int creations = 0;
  auto creator = [&](Counter** out) {
    ++creations;
    *out = new Counter(&live);
    return absl::OkStatus();
  };
  Counter* a = nullptr;
  Counter* b = nullptr;
  ASSERT_TRUE(rm.LookupOrCreate<Counter>("c", "x", &a, creator).ok());
  ASSERT_TRUE(rm.LookupOrCreate<Counter>("c", "x", &b, creator).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(creations, 1);
  a->Unref();
  b->Unref();
  EXPECT_EQ(live, 1);
  Counter* failed = nullptr;
  absl::Status s = rm.LookupOrCreate<Counter>("c", "y", &failed, [](Counter**) {
    return absl::InvalidArgumentError("nope");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rm.NumResources(), 1u);
  rm.Clear();
  EXPECT_EQ(live, 0);
}

TEST(ResourceMgrTest, CleanupContainersAndStepContainer) {
  int live = 0;
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("b", "1", new Counter(&live)).ok());
  ASSERT_TRUE(rm.Create("a", "1", new Counter(&live)).ok());
  ASSERT_TRUE(rm.Create("a", "2", new Counter(&live)).ok());
  EXPECT_EQ(rm.Containers(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(rm.Cleanup("a").ok());
  EXPECT_EQ(live, 1);
  EXPECT_TRUE(rm.Cleanup("does-not-exist").ok());
  EXPECT_EQ(rm.Containers(), (std::vector<std::string>{"b"}));
  {
    ScopedStepContainer step(42, [&](const std::string& name) {
      EXPECT_TRUE(rm.Cleanup(name).ok());
    });
    EXPECT_EQ(step.name(), "__per_step_42");
    ASSERT_TRUE(rm.Create(step.name(), "t", new Counter(&live)).ok());
    EXPECT_EQ(live, 2);
  }
  EXPECT_EQ(live, 1);
}

TEST(ResourceMgrTest, StepContainerNeverNamedIsNotCleanedUp) {
  int cleanups = 0;
  {
    ScopedStepContainer step(7, [&](const std::string&) { ++cleanups; });
  }
  EXPECT_EQ(cleanups, 0);
  std::string cleaned;
  {
    ScopedStepContainer step(7, [&](const std::string& n) {
      ++cleanups;
      cleaned = n;
    });
    EXPECT_EQ(step.name(), "__per_step_7");
    EXPECT_EQ(&step.name(), &step.name());
  }
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(cleaned, "__per_step_7");
}

TEST(ResourceMgrTest, DestructorReleasesEverything) {
  int live = 0;
  {
    ResourceMgr rm;
    ASSERT_TRUE(rm.Create("a", "1", new Counter(&live)).ok());
    ASSERT_TRUE(rm.Create("b", "2", new Counter(&live)).ok());
  }
  EXPECT_EQ(live, 0);
}

}  // namespace
}  // namespace stepflow
