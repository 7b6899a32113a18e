#include "runtime/framework/tensor_id.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(TensorIdTest, Parse) {
  EXPECT_EQ(ParseTensorName("a"), (TensorId{"a", 0}));
  EXPECT_EQ(ParseTensorName("a:3"), (TensorId{"a", 3}));
  EXPECT_EQ(ParseTensorName("scope/a:12"), (TensorId{"scope/a", 12}));
  EXPECT_EQ(ParseTensorName("^ctl"), (TensorId{"ctl", kControlSlot}));
  EXPECT_EQ(ParseTensorName("a:b"), (TensorId{"a:b", 0}));
  EXPECT_EQ(ParseTensorName("a:"), (TensorId{"a:", 0}));
  EXPECT_EQ(ParseTensorName("a:-1"), (TensorId{"a:-1", 0}));
  EXPECT_EQ(ParseTensorName("a:99999999999"), (TensorId{"a:99999999999", 0}));
}

TEST(TensorIdTest, ToStringAndOrder) {
  EXPECT_EQ((TensorId{"a", 2}).ToString(), "a:2");
  EXPECT_EQ((TensorId{"a", kControlSlot}).ToString(), "^a");
  EXPECT_LT((TensorId{"a", 5}), (TensorId{"b", 0}));
  EXPECT_LT((TensorId{"a", 0}), (TensorId{"a", 1}));
}

TEST(TensorIdTest, CanonicalTensorName) {
  EXPECT_EQ(CanonicalTensorName("x"), "x:0");
  EXPECT_EQ(CanonicalTensorName("x:0"), "x:0");
  EXPECT_EQ(CanonicalTensorName("x:1"), "x:1");
  EXPECT_EQ(CanonicalTensorName("scope/x:12"), "scope/x:12");
  // Control inputs keep their form: no ":0", no index.
  EXPECT_EQ(CanonicalTensorName("^ctrl"), "^ctrl");
  EXPECT_EQ(CanonicalTensorName("^scope/ctrl"), "^scope/ctrl");
  // A suffix that is not an index is part of the node name.
  EXPECT_EQ(CanonicalTensorName("a:b"), "a:b:0");
  EXPECT_EQ(CanonicalTensorName("a:"), "a::0");
  EXPECT_EQ(CanonicalTensorName(""), ":0");
  // Idempotent.
  for (const char* name : {"x", "x:3", "^c", "a:b"}) {
    const std::string once = CanonicalTensorName(name);
    EXPECT_EQ(CanonicalTensorName(once), once) << name;
  }
}

TEST(TensorIdTest, SortedUnique) {
  EXPECT_EQ(SortedUnique({}), std::vector<std::string>());
  EXPECT_EQ(SortedUnique({"b:0", "a:1", "b:0", "a:0", "a:1"}),
            (std::vector<std::string>{"a:0", "a:1", "b:0"}));
  EXPECT_EQ(SortedUnique({"only"}), std::vector<std::string>{"only"});
}

}  // namespace
}  // namespace stepflow
