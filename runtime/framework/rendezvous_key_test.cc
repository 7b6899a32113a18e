#include <string>

#include <gtest/gtest.h>
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/rendezvous.h"

namespace stepflow {
namespace {

constexpr char kSrc[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDst[] = "/job:localhost/replica:0/task:0/device:CPU:1";

TEST(RendezvousKeyTest, CreateFormat) {
  EXPECT_EQ(Rendezvous::CreateKey(kSrc, 0xabc, kDst, "edge_1_a", {3, 7}),
            std::string(kSrc) + ";0000000000000abc;" + kDst + ";edge_1_a;3:7");
  EXPECT_EQ(Rendezvous::CreateKey("/cpu:0", ~uint64_t{0}, "/cpu:1", "x", {}),
            "/cpu:0;ffffffffffffffff;/cpu:1;x;0:0");
}

TEST(RendezvousKeyTest, ParseRoundTrip) {
  const std::string key =
      Rendezvous::CreateKey(kSrc, 0x1234abcd5678ef90, kDst, "t", {5, 2});
  Rendezvous::ParsedKey parsed;
  ASSERT_TRUE(Rendezvous::ParseKey(key, &parsed).ok());
  EXPECT_EQ(parsed.src_device, kSrc);
  EXPECT_EQ(parsed.dst_device, kDst);
  EXPECT_EQ(parsed.src_incarnation, 0x1234abcd5678ef90u);
  EXPECT_EQ(parsed.edge_name, "t");
  EXPECT_EQ(parsed.frame_iter, (FrameAndIter{5, 2}));
  EXPECT_EQ(parsed.src.id, 0);
  EXPECT_EQ(parsed.dst.id, 1);
  EXPECT_EQ(parsed.full_key, key);
}

void ExpectBad(const std::string& key) {
  Rendezvous::ParsedKey parsed;
  absl::Status s = Rendezvous::ParseKey(key, &parsed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << key;
  EXPECT_NE(s.message().find(key), std::string::npos) << s;
}

TEST(RendezvousKeyTest, ParseErrors) {
  const std::string s = kSrc;
  const std::string d = kDst;
  ExpectBad(s + ";0000000000000001;" + d + ";name");          // 4 parts.
  ExpectBad(s + ";0000000000000001;" + d + ";name;0:0;x");    // 6 parts.
  ExpectBad("/bogus:0;0000000000000001;" + d + ";name;0:0");  // Bad src.
  ExpectBad(s + ";0000000000000001;not a device;name;0:0");   // Bad dst.
  ExpectBad(";0000000000000001;" + d + ";name;0:0");          // Empty src.
  ExpectBad(s + ";00000000000000zz;" + d + ";name;0:0");      // Non-hex.
  ExpectBad(s + ";;" + d + ";name;0:0");                      // Empty inc.
  ExpectBad(s + ";00000000000000001;" + d + ";name;0:0");     // 17 digits.
  ExpectBad(s + ";0000000000000001;" + d + ";;0:0");          // Empty name.
  ExpectBad(s + ";0000000000000001;" + d + ";name;0");        // No iter.
  ExpectBad(s + ";0000000000000001;" + d + ";name;a:b");      // Non-numeric.
  ExpectBad(s + ";0000000000000001;" + d + ";name;");         // Empty.
  ExpectBad(s + ";0000000000000001;" + d + ";name;1:-2");     // Negative.
  ExpectBad("");
}

NodeDef SendNode(const std::string& name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("_Send");
  AddNodeAttr("send_device", kSrc, &def);
  AddNodeAttr("send_device_incarnation", int64_t{0x42}, &def);
  AddNodeAttr("recv_device", kDst, &def);
  AddNodeAttr("tensor_name", "edge_3_x", &def);
  return def;
}

TEST(SendRecvKeyTest, ReadsTheAttrsAndCachesTheRootKey) {
  SendRecvKey key;
  ASSERT_TRUE(SendRecvKey::FromNodeDef(SendNode("s"), &key).ok());
  EXPECT_EQ(key.send_device(), kSrc);
  EXPECT_EQ(key.recv_device(), kDst);
  EXPECT_EQ(key.tensor_name(), "edge_3_x");
  EXPECT_EQ(key.send_device_incarnation(), 0x42u);
  Rendezvous::ParsedKey root;
  ASSERT_TRUE(key.Get(FrameAndIter(), &root).ok());
  EXPECT_EQ(root.full_key,
            Rendezvous::CreateKey(kSrc, 0x42, kDst, "edge_3_x", {}));
  Rendezvous::ParsedKey iter;
  ASSERT_TRUE(key.Get({7, 2}, &iter).ok());
  EXPECT_EQ(iter.full_key,
            Rendezvous::CreateKey(kSrc, 0x42, kDst, "edge_3_x", {7, 2}));
  EXPECT_EQ(iter.frame_iter, (FrameAndIter{7, 2}));
}

TEST(SendRecvKeyTest, MissingAttrIsNotFoundNamingTheNode) {
  for (const char* attr : {"send_device", "send_device_incarnation",
                           "recv_device", "tensor_name"}) {
    NodeDef def = SendNode("send/x");
    def.mutable_attr()->erase(attr);
    SendRecvKey key;
    const absl::Status s = SendRecvKey::FromNodeDef(def, &key);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << attr;
    EXPECT_NE(s.message().find("{{node send/x}}"), std::string::npos) << s;
  }
}

TEST(SendRecvKeyTest, BadDeviceIsInvalidArgumentNamingTheNode) {
  NodeDef def = SendNode("r");
  AddNodeAttr("recv_device", "not a device", &def);
  SendRecvKey key;
  const absl::Status s = SendRecvKey::FromNodeDef(def, &key);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("{{node r}}"), std::string::npos) << s;
}

TEST(SendRecvKeyTest, WrongAttrKindIsInvalidArgument) {
  NodeDef def = SendNode("r");
  AddNodeAttr("send_device_incarnation", "not an int", &def);
  SendRecvKey key;
  EXPECT_EQ(SendRecvKey::FromNodeDef(def, &key).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
