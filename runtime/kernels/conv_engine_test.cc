#include "runtime/kernels/conv_engine.h"

#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/conv_geometry.h"
#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

// A 2-D geometry (D = 1) of one image.
ConvGeometry Geometry2D(int64_t h, int64_t w, int64_t c, int64_t fh, int64_t fw,
                        int64_t stride, int64_t pad, int64_t out_h,
                        int64_t out_w) {
  ConvGeometry g;
  g.batch = 1;
  g.in[1] = h;
  g.in[2] = w;
  g.filter[1] = fh;
  g.filter[2] = fw;
  g.stride[1] = g.stride[2] = stride;
  g.pad[1] = g.pad[2] = pad;
  g.out[1] = out_h;
  g.out[2] = out_w;
  g.in_depth = c;
  g.out_depth = 1;
  return g;
}

TEST(ConvOutputSizeTest, FollowsEachPaddingMode) {
  OpKernel* kernel = nullptr;
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(test::TestNode("c", "Conv2D")
                            .Inputs(2)
                            .Attr("T", DT_FLOAT)
                            .Attr("strides", {1, 1, 1, 1})
                            .Attr("padding", std::string("VALID")))
                  .ok());
  kernel = runner.kernel();
  int64_t out = 0, pad = 0;
  // VALID: (5 - 3 + 2) / 2 = 2.
  ASSERT_TRUE(
      ConvOutputSize(*kernel, 5, 3, 1, 2, ConvPadding::kValid, 0, 0, &out, &pad)
          .ok());
  EXPECT_EQ(out, 2);
  EXPECT_EQ(pad, 0);
  // SAME: ceil(5 / 2) = 3, total padding (3 - 1) * 2 + 3 - 5 = 2.
  ASSERT_TRUE(
      ConvOutputSize(*kernel, 5, 3, 1, 2, ConvPadding::kSame, 0, 0, &out, &pad)
          .ok());
  EXPECT_EQ(out, 3);
  EXPECT_EQ(pad, 1);
  // Dilation 2 makes a 3-tap filter span 5.
  ASSERT_TRUE(
      ConvOutputSize(*kernel, 5, 3, 2, 1, ConvPadding::kValid, 0, 0, &out, &pad)
          .ok());
  EXPECT_EQ(out, 1);
  // EXPLICIT: (4 + 1 + 2 - 3 + 1) / 1 = 5.
  ASSERT_TRUE(ConvOutputSize(*kernel, 4, 3, 1, 1, ConvPadding::kExplicit, 1, 2,
                             &out, &pad)
                  .ok());
  EXPECT_EQ(out, 5);
  EXPECT_EQ(pad, 1);
  // A window one larger than the input gives 0 outputs; larger, an error.
  ASSERT_TRUE(
      ConvOutputSize(*kernel, 2, 3, 1, 1, ConvPadding::kValid, 0, 0, &out, &pad)
          .ok());
  EXPECT_EQ(out, 0);
  EXPECT_EQ(
      ConvOutputSize(*kernel, 1, 4, 1, 1, ConvPadding::kValid, 0, 0, &out, &pad)
          .code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(Im2ColTest, GathersWindowsWithZeroPadding) {
  // 3x3 image 1..9, 2x2 filter, stride 1, SAME-like padding before of 0
  // and a 2x2 output over the top-left windows.
  const ConvGeometry g = Geometry2D(3, 3, 1, 2, 2, 1, 0, 2, 2);
  const std::vector<float> image = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> col(4 * 4);
  Im2Col(g, image.data(), 0, 0, 4, col.data());
  const std::vector<float> want = {1, 2, 4, 5, 2, 3, 5, 6,
                                   4, 5, 7, 8, 5, 6, 8, 9};
  EXPECT_EQ(col, want);

  // Padding 1 before: the first window starts outside the image.
  const ConvGeometry padded = Geometry2D(3, 3, 1, 2, 2, 2, 1, 2, 2);
  Im2Col(padded, image.data(), 0, 0, 1, col.data());
  EXPECT_EQ(std::vector<float>(col.begin(), col.begin() + 4),
            (std::vector<float>{0, 0, 0, 1}));
}

TEST(Col2ImAddTest, AddsEachWindowBack) {
  const ConvGeometry g = Geometry2D(3, 3, 1, 2, 2, 1, 0, 2, 2);
  const std::vector<float> ones(4 * 4, 1.0f);
  std::vector<float> image(9, 0.0f);
  Col2ImAdd(g, ones.data(), 0, 4, image.data());
  // How many 2x2 windows cover each pixel.
  EXPECT_EQ(image, (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(Im2ColTest, SelectsTheChannelGroup) {
  // 1x1 image with 4 channels in 2 groups, 1x1 filter.
  ConvGeometry g = Geometry2D(1, 1, 4, 1, 1, 1, 0, 1, 1);
  g.groups = 2;
  const std::vector<float> image = {1, 2, 3, 4};
  std::vector<float> col(2);
  Im2Col(g, image.data(), 1, 0, 1, col.data());
  EXPECT_EQ(col, (std::vector<float>{3, 4}));
}

}  // namespace
}  // namespace stepflow
