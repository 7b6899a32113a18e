#include "runtime/framework/tensor_shape.h"

#include <vector>

#include <gtest/gtest.h>
#include <cstdint>

namespace stepflow {
namespace {

TEST(TensorShapeTest, Basics) {
  TensorShape s({2, 3});
  EXPECT_EQ(s.dims(), 2);
  EXPECT_EQ(s.num_elements(), 6);
  EXPECT_EQ(s.DebugString(), "[2,3]");
  EXPECT_EQ(TensorShape().DebugString(), "[]");
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape({4, 0}).num_elements(), 0);
  s.AddDim(5);
  s.InsertDim(0, 7);
  EXPECT_EQ(s.DebugString(), "[7,2,3,5]");
  s.RemoveDim(1);
  s.set_dim(0, 1);
  EXPECT_EQ(s, TensorShape({1, 3, 5}));
  EXPECT_NE(s, TensorShape({1, 3}));
}

TEST(TensorShapeTest, ProtoRoundTrip) {
  TensorShapeProto p;
  TensorShape({2, 0, 9}).AsProto(&p);
  TensorShape back;
  ASSERT_TRUE(TensorShape::FromProto(p, &back).ok());
  EXPECT_EQ(back, TensorShape({2, 0, 9}));
}

TEST(TensorShapeTest, RejectsInvalid) {
  TensorShape out;
  EXPECT_EQ(TensorShape::BuildTensorShape({2, -1}, &out).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      TensorShape::BuildTensorShape({int64_t{1} << 40, int64_t{1} << 40}, &out)
          .code(),
      absl::StatusCode::kInvalidArgument);
  TensorShapeProto p;
  p.set_unknown_rank(true);
  EXPECT_EQ(TensorShape::FromProto(p, &out).code(),
            absl::StatusCode::kInvalidArgument);
  p.Clear();
  p.add_dim()->set_size(-1);
  EXPECT_EQ(TensorShape::FromProto(p, &out).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorShapeTest, RankAboveTensorFlowsLimitIsRefused) {
  TensorShape out;
  std::vector<int64_t> dims(TensorShape::kMaxDimensions, 1);
  EXPECT_TRUE(TensorShape::BuildTensorShape(dims, &out).ok());
  EXPECT_EQ(out.dims(), 254);
  dims.push_back(1);
  absl::Status s = TensorShape::BuildTensorShape(dims, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("255 dimensions; at most 254"), std::string::npos)
      << s;
  TensorShapeProto proto;
  for (int i = 0; i < 20000; ++i) proto.add_dim()->set_size(1);
  EXPECT_TRUE(absl::IsInvalidArgument(TensorShape::FromProto(proto, &out)));
  PartialTensorShape partial;
  EXPECT_TRUE(
      absl::IsInvalidArgument(PartialTensorShape::FromProto(proto, &partial)));
}

TEST(PartialTensorShapeTest, UnknownRankAndDims) {
  PartialTensorShape unknown;
  EXPECT_TRUE(unknown.unknown_rank());
  EXPECT_EQ(unknown.dims(), -1);
  EXPECT_EQ(unknown.DebugString(), "<unknown>");
  EXPECT_TRUE(unknown.IsCompatibleWith(TensorShape({1, 2, 3})));
  EXPECT_FALSE(unknown.IsFullyDefined());

  const int64_t dims[] = {-1, 3};
  PartialTensorShape p(dims);
  EXPECT_EQ(p.DebugString(), "[?,3]");
  EXPECT_TRUE(p.IsCompatibleWith(TensorShape({7, 3})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({7, 4})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({3})));
  EXPECT_FALSE(p.IsFullyDefined());
  const int64_t full[] = {2};
  EXPECT_TRUE(PartialTensorShape(full).IsFullyDefined());
}

TEST(PartialTensorShapeTest, FromProto) {
  TensorShapeProto p;
  p.set_unknown_rank(true);
  PartialTensorShape out;
  ASSERT_TRUE(PartialTensorShape::FromProto(p, &out).ok());
  EXPECT_TRUE(out.unknown_rank());
  p.add_dim()->set_size(2);
  EXPECT_EQ(PartialTensorShape::FromProto(p, &out).code(),
            absl::StatusCode::kInvalidArgument);
  p.Clear();
  p.add_dim()->set_size(-1);
  p.add_dim()->set_size(4);
  ASSERT_TRUE(PartialTensorShape::FromProto(p, &out).ok());
  EXPECT_EQ(out.DebugString(), "[?,4]");
  p.add_dim()->set_size(-2);
  EXPECT_EQ(PartialTensorShape::FromProto(p, &out).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
