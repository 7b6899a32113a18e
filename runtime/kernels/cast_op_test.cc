#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Vec;

absl::Status Cast(const Tensor& x, DataType dst, Tensor* out,
                  bool truncate = false) {
  std::vector<Tensor> outs;
  absl::Status s = test::RunKernel(test::TestNode("cast", "Cast")
                                       .Inputs(1)
                                       .Attr("SrcT", x.dtype())
                                       .Attr("DstT", dst)
                                       .Attr("Truncate", truncate),
                                   {x}, &outs);
  if (!outs.empty()) *out = outs[0];
  return s;
}

TEST(CastOpTest, FloatToIntTruncatesTowardZero) {
  Tensor out;
  ASSERT_TRUE(Cast(Vec<float>({1.7f, -1.7f, 0.0f}), DT_INT32, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {1, -1, 0});
}

// TensorFlow's (x86's) results: truncation, then wrapping through int32
// or int64, whose minimum stands for NaN and out-of-range values.
TEST(CastOpTest, FloatToIntWrapsLikeTensorFlow) {
  Tensor out;
  const float inf = std::numeric_limits<float>::infinity();
  const int32_t kMin32 = std::numeric_limits<int32_t>::min();
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  ASSERT_TRUE(Cast(Vec<float>({1e20f, -1e20f, NAN, inf}), DT_INT32, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({4}),
                        {kMin32, kMin32, kMin32, kMin32});
  ASSERT_TRUE(
      Cast(Vec<double>({-5, 300, -1.7, 70000, 3e9, NAN}), DT_UINT8, &out).ok());
  ExpectTensor<uint8_t>(out, TensorShape({6}), {251, 44, 255, 112, 0, 0});
  ASSERT_TRUE(Cast(Vec<float>({70000, -70000}), DT_INT16, &out).ok());
  ExpectTensor<int16_t>(out, TensorShape({2}), {4464, -4464});
  ASSERT_TRUE(Cast(Vec<double>({1e30, -3}), DT_INT64, &out).ok());
  ExpectTensor<int64_t>(out, TensorShape({2}), {kMin64, -3});
  ASSERT_TRUE(Cast(Vec<float>({-2, 3e9f}), DT_UINT32, &out).ok());
  ExpectTensor<uint32_t>(out, TensorShape({2}), {4294967294u, 3000000000u});
  ASSERT_TRUE(Cast(Vec<double>({-1, NAN, 1e19}), DT_UINT64, &out).ok());
  ExpectTensor<uint64_t>(
      out, TensorShape({3}),
      {~uint64_t{0}, uint64_t{1} << 63, uint64_t{10000000000000000000u}});
}

TEST(CastOpTest, IntegerConversionsWrap) {
  Tensor out;
  ASSERT_TRUE(Cast(Vec<int32_t>({300, -1}), DT_UINT8, &out).ok());
  ExpectTensor<uint8_t>(out, TensorShape({2}), {44, 255});
  ASSERT_TRUE(Cast(Vec<int64_t>({int64_t{1} << 40}), DT_DOUBLE, &out).ok());
  ExpectTensor<double>(out, TensorShape({1}), {1099511627776.0});
}

TEST(CastOpTest, Bool) {
  Tensor out;
  ASSERT_TRUE(Cast(Vec<float>({0.0f, 0.5f, -2.0f}), DT_BOOL, &out).ok());
  ExpectTensor<bool>(out, TensorShape({3}), {false, true, true});
  ASSERT_TRUE(Cast(Vec<bool>({true, false}), DT_FLOAT, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {1.0f, 0.0f});
  ASSERT_TRUE(Cast(Vec<bool>({true}), DT_HALF, &out).ok());
  ExpectTensor<half>(out, TensorShape({1}), {half(1.0f)});
}

TEST(CastOpTest, Complex) {
  Tensor out;
  ASSERT_TRUE(Cast(Vec<complex64>({{1.5f, 2.0f}}), DT_FLOAT, &out).ok());
  ExpectTensor<float>(out, TensorShape({1}), {1.5f});
  ASSERT_TRUE(Cast(Vec<int32_t>({3}), DT_COMPLEX128, &out).ok());
  ExpectTensor<complex128>(out, TensorShape({1}), {complex128(3, 0)});
  ASSERT_TRUE(Cast(Vec<complex128>({{1, -1}}), DT_COMPLEX64, &out).ok());
  ExpectTensor<complex64>(out, TensorShape({1}), {complex64(1, -1)});
}

TEST(CastOpTest, HalfAndBfloat16) {
  Tensor out;
  ASSERT_TRUE(Cast(Vec<float>({0.5f, 65504.0f}), DT_HALF, &out).ok());
  ExpectTensor<half>(out, TensorShape({2}), {half(0.5f), half(65504.0f)});
  ASSERT_TRUE(Cast(Vec<half>({half(2.5f)}), DT_INT32, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({1}), {2});
  ASSERT_TRUE(Cast(Vec<bfloat16>({bfloat16(3.0f)}), DT_DOUBLE, &out).ok());
  ExpectTensor<double>(out, TensorShape({1}), {3.0});
}

TEST(CastOpTest, TruncateToBfloat16) {
  // 1 + 2^-8 + 2^-9: rounding goes up to 1 + 2^-7, truncation keeps 1.
  const float v = 1.0f + 1.0f / 256 + 1.0f / 512;
  Tensor rounded, truncated;
  ASSERT_TRUE(Cast(Vec<float>({v}), DT_BFLOAT16, &rounded, false).ok());
  ASSERT_TRUE(Cast(Vec<float>({v, NAN}), DT_BFLOAT16, &truncated, true).ok());
  EXPECT_EQ(static_cast<float>(test::Values<bfloat16>(rounded)[0]),
            1.0f + 1.0f / 128);
  EXPECT_EQ(static_cast<float>(test::Values<bfloat16>(truncated)[0]), 1.0f);
  EXPECT_TRUE(
      std::isnan(static_cast<float>(test::Values<bfloat16>(truncated)[1])));
}

TEST(CastOpTest, SameTypeForwardsIncludingStrings) {
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(test::TestNode("c", "Cast")
                            .Inputs(1)
                            .Attr("SrcT", DT_STRING)
                            .Attr("DstT", DT_STRING))
                  .ok());
  Tensor in = Vec<std::string>({"x"});
  ASSERT_TRUE(runner.Run({in}).ok());
  EXPECT_TRUE(runner.output(0).SharesBufferWith(in));
  EXPECT_FALSE(runner.kernel()->IsExpensive());
}

TEST(CastOpTest, StringToNumberIsUnimplemented) {
  test::KernelRunner runner;
  ExpectError(runner.Init(test::TestNode("bad_cast", "Cast")
                              .Inputs(1)
                              .Attr("SrcT", DT_STRING)
                              .Attr("DstT", DT_FLOAT)),
              absl::StatusCode::kUnimplemented,
              {"Cast string to float is not supported", "{{node bad_cast}}"});
}

// Every numeric/bool pair has a kernel and round-trips small integers.
TEST(CastOpTest, AllPodPairs) {
  const std::vector<DataType> types = {
      DT_FLOAT, DT_DOUBLE,   DT_INT32,     DT_INT64,      DT_UINT8,
      DT_INT16, DT_INT8,     DT_UINT16,    DT_UINT32,     DT_UINT64,
      DT_HALF,  DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128, DT_BOOL};
  for (DataType src : types) {
    Tensor one;
    ASSERT_TRUE(Cast(Vec<int32_t>({1, 0}), src, &one).ok())
        << DataTypeString(src);
    for (DataType dst : types) {
      Tensor out, back;
      ASSERT_TRUE(Cast(one, dst, &out).ok())
          << DataTypeString(src) << "->" << DataTypeString(dst);
      ASSERT_EQ(out.dtype(), dst);
      ASSERT_TRUE(Cast(out, DT_INT32, &back).ok());
      ExpectTensor<int32_t>(back, TensorShape({2}), {1, 0});
    }
  }
}

}  // namespace
}  // namespace stepflow
