#include "runtime/distributed/rpc/wire_coding.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/worker.pb.h"

namespace stepflow {
namespace {

std::unique_ptr<RecvTensorResponse> Response(size_t content_bytes) {
  auto r = std::make_unique<RecvTensorResponse>();
  r->set_is_dead(false);
  r->set_send_start_micros(123456789);
  TensorProto* t = r->mutable_tensor();
  t->set_dtype(DT_FLOAT);
  t->mutable_tensor_shape()->add_dim()->set_size(
      static_cast<int64_t>(content_bytes / 4));
  std::string content(content_bytes, '\0');
  for (size_t i = 0; i < content_bytes; ++i) {
    content[i] = static_cast<char>((i * 131) & 0xff);
  }
  t->set_tensor_content(content);
  return r;
}

std::vector<grpc::Slice> Slices(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  return slices;
}

TEST(WireCodingTest, LargeTensorContentIsSentWithoutCopy) {
  auto response = Response(1 << 20);
  const RecvTensorResponse want = *response;
  const char* content = response->tensor().tensor_content().data();
  grpc::ByteBuffer buffer = EncodeResponse(std::move(response));
  std::vector<grpc::Slice> slices = Slices(buffer);
  ASSERT_EQ(slices.size(), 2u);
  // The second slice is the content string's own memory.
  EXPECT_EQ(reinterpret_cast<const char*>(slices[1].begin()), content);
  EXPECT_EQ(slices[1].size(), size_t{1} << 20);
  // And the bytes are a valid encoding of the same message.
  RecvTensorResponse got;
  ASSERT_TRUE(ParseFromByteBuffer(&buffer, &got));
  EXPECT_EQ(got.SerializeAsString(), want.SerializeAsString());
}

TEST(WireCodingTest, SmallAndOtherMessagesAreSerialisedWhole) {
  auto small = Response(16);
  const RecvTensorResponse want = *small;
  grpc::ByteBuffer buffer = EncodeResponse(std::move(small));
  EXPECT_EQ(Slices(buffer).size(), 1u);
  RecvTensorResponse got;
  ASSERT_TRUE(ParseFromByteBuffer(&buffer, &got));
  EXPECT_EQ(got.SerializeAsString(), want.SerializeAsString());

  auto other = std::make_unique<RunGraphResponse>();
  other->add_recv()->set_name("x");
  grpc::ByteBuffer b2 = EncodeResponse(std::move(other));
  RunGraphResponse parsed;
  ASSERT_TRUE(ParseFromByteBuffer(&b2, &parsed));
  ASSERT_EQ(parsed.recv_size(), 1);
  EXPECT_EQ(parsed.recv(0).name(), "x");
}

TEST(WireCodingTest, DeadTensorWithoutContentRoundTrips) {
  auto r = std::make_unique<RecvTensorResponse>();
  r->set_is_dead(true);
  grpc::ByteBuffer buffer = EncodeResponse(std::move(r));
  RecvTensorResponse got;
  ASSERT_TRUE(ParseFromByteBuffer(&buffer, &got));
  EXPECT_TRUE(got.is_dead());
  EXPECT_FALSE(got.has_tensor());
}

TEST(WireCodingTest, GarbageDoesNotParse) {
  grpc::Slice junk(
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
  grpc::ByteBuffer buffer(&junk, 1);
  RecvTensorResponse got;
  EXPECT_FALSE(ParseFromByteBuffer(&buffer, &got));
}

}  // namespace
}  // namespace stepflow
