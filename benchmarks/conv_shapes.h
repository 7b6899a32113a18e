// The convolutions benchmarks/conv_benchmark.cc times, shared with its
// TensorFlow peer (benchmarks/conv_tf_peer.py keeps the same table): NHWC
// float shapes from ResNet-50 and MobileNet-v2 layers, forward and both
// gradients.
#ifndef STEPFLOW_BENCHMARKS_CONV_SHAPES_H_
#define STEPFLOW_BENCHMARKS_CONV_SHAPES_H_

#include <cstdint>

namespace stepflow::bench {

struct ConvShape {
  const char* name;
  const char* op;  // Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter,
                   // DepthwiseConv2dNative
  int64_t batch, height, width, in_depth;
  int64_t filter, out_depth;  // square filter; depthwise: the multiplier
  int64_t stride;             // padding SAME
};

inline constexpr ConvShape kConvShapes[] = {
    {"conv3x3_56x56x64", "Conv2D", 8, 56, 56, 64, 3, 64, 1},
    {"conv1x1_28x28x128to256", "Conv2D", 8, 28, 28, 128, 1, 256, 1},
    {"conv7x7s2_224x224x3", "Conv2D", 4, 224, 224, 3, 7, 64, 2},
    {"depthwise3x3_56x56x128", "DepthwiseConv2dNative", 8, 56, 56, 128, 3, 1,
     1},
    {"backprop_input_3x3_56x56x64", "Conv2DBackpropInput", 8, 56, 56, 64, 3, 64,
     1},
    {"backprop_filter_3x3_56x56x64", "Conv2DBackpropFilter", 8, 56, 56, 64, 3,
     64, 1},
};
inline constexpr int kNumConvShapes =
    sizeof(kConvShapes) / sizeof(kConvShapes[0]);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_CONV_SHAPES_H_
