// StridedSlice: NumPy-indexing cases, a 1-D/2-D reference sweep, errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/strided_slice_helper.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Make;
using test::TestNode;
using test::Vec;

struct Masks {
  int begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

absl::Status Slice(const Tensor& x, const std::vector<int32_t>& b,
                   const std::vector<int32_t>& e, const std::vector<int32_t>& s,
                   const Masks& m, Tensor* out) {
  std::vector<Tensor> outs;
  absl::Status st = test::RunKernel(
      TestNode("ss", "StridedSlice")
          .Inputs(4)
          .Attr("T", x.dtype())
          .Attr("Index", DT_INT32)
          .Attr("begin_mask", m.begin)
          .Attr("end_mask", m.end)
          .Attr("ellipsis_mask", m.ellipsis)
          .Attr("new_axis_mask", m.new_axis)
          .Attr("shrink_axis_mask", m.shrink),
      {x, Vec<int32_t>(b), Vec<int32_t>(e), Vec<int32_t>(s)}, &outs);
  if (!outs.empty()) *out = outs[0];
  return st;
}

// 3x4 matrix with values 0..11.
Tensor M34() {
  std::vector<int32_t> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  return Make<int32_t>(TensorShape({3, 4}), v);
}

TEST(StridedSliceOpTest, BasicRanges) {
  Tensor out;
  // x[1:3, 1:3]
  ASSERT_TRUE(Slice(M34(), {1, 1}, {3, 3}, {1, 1}, {}, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({2, 2}), {5, 6, 9, 10});
  // x[:, ::2]
  Masks m;
  m.begin = 3;
  m.end = 3;
  ASSERT_TRUE(Slice(M34(), {0, 0}, {0, 0}, {1, 2}, m, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({3, 2}), {0, 2, 4, 6, 8, 10});
  // x[-1:, -2:] with clamped out-of-range end.
  ASSERT_TRUE(Slice(M34(), {-1, -2}, {100, 100}, {1, 1}, {}, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({1, 2}), {10, 11});
}

TEST(StridedSliceOpTest, NegativeStrides) {
  Tensor out;
  Masks m;
  m.begin = 1;
  m.end = 1;
  // v[::-1]
  ASSERT_TRUE(Slice(Vec<float>({1, 2, 3, 4}), {0}, {0}, {-1}, m, &out).ok());
  ExpectTensor<float>(out, TensorShape({4}), {4, 3, 2, 1});
  // v[2:0:-1]
  ASSERT_TRUE(Slice(Vec<float>({1, 2, 3, 4}), {2}, {0}, {-1}, {}, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {3, 2});
  // v[-1:-5:-2]
  ASSERT_TRUE(Slice(Vec<float>({1, 2, 3, 4}), {-1}, {-5}, {-2}, {}, &out).ok());
  ExpectTensor<float>(out, TensorShape({2}), {4, 2});
  // Empty when the direction is wrong: v[3:1]
  ASSERT_TRUE(Slice(Vec<float>({1, 2, 3, 4}), {3}, {1}, {1}, {}, &out).ok());
  ExpectTensor<float>(out, TensorShape({0}), {});
}

TEST(StridedSliceOpTest, ShrinkNewAxisEllipsis) {
  Tensor out;
  Masks shrink;
  shrink.shrink = 1;
  // x[1] -> row 1.
  ASSERT_TRUE(Slice(M34(), {1}, {2}, {1}, shrink, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({4}), {4, 5, 6, 7});
  // x[-1, 2] -> scalar.
  shrink.shrink = 3;
  ASSERT_TRUE(Slice(M34(), {-1, 2}, {0, 3}, {1, 1}, shrink, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({}), {10});
  // x[..., 1] -> column 1.
  Masks e;
  e.ellipsis = 1;
  e.shrink = 2;
  ASSERT_TRUE(Slice(M34(), {0, 1}, {0, 2}, {1, 1}, e, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({3}), {1, 5, 9});
  // x[tf.newaxis, 0:1] -> [1,1,4]
  Masks n;
  n.new_axis = 1;
  ASSERT_TRUE(Slice(M34(), {0, 0}, {0, 1}, {1, 1}, n, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({1, 1, 4}), {0, 1, 2, 3});
  // x[..., tf.newaxis] -> [3,4,1]; the whole input, so the buffer is shared.
  Masks en;
  en.ellipsis = 1;
  en.new_axis = 2;
  test::KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(TestNode("ss", "StridedSlice")
                            .Inputs(4)
                            .Attr("T", DT_INT32)
                            .Attr("Index", DT_INT32)
                            .Attr("ellipsis_mask", 1)
                            .Attr("new_axis_mask", 2))
                  .ok());
  const Tensor x = M34();
  ASSERT_TRUE(runner
                  .Run({x, Vec<int32_t>({0, 0}), Vec<int32_t>({0, 0}),
                        Vec<int32_t>({1, 1})})
                  .ok());
  EXPECT_EQ(runner.output(0).shape().DebugString(), "[3,4,1]");
  EXPECT_TRUE(runner.output(0).SharesBufferWith(x));
  // Scalar input with a new axis.
  ASSERT_TRUE(Slice(test::Scalar<int32_t>(5), {0}, {0}, {1}, n, &out).ok());
  ExpectTensor<int32_t>(out, TensorShape({1}), {5});
}

TEST(StridedSliceOpTest, Strings) {
  Tensor out;
  ASSERT_TRUE(
      Slice(Vec<std::string>({"a", "b", "c"}), {0}, {3}, {2}, {}, &out).ok());
  ExpectTensor<std::string>(out, TensorShape({2}), {"a", "c"});
}

TEST(StridedSliceOpTest, Errors) {
  Tensor out;
  ExpectError(Slice(M34(), {0}, {1}, {0}, {}, &out),
              absl::StatusCode::kInvalidArgument,
              {"strides[0] must be non-zero", "{{node ss}}"});
  Masks shrink;
  shrink.shrink = 1;
  ExpectError(Slice(M34(), {3}, {4}, {1}, shrink, &out),
              absl::StatusCode::kInvalidArgument,
              {"slice index 3 of dimension 0 out of bounds."});
  ExpectError(Slice(M34(), {-4}, {0}, {1}, shrink, &out),
              absl::StatusCode::kInvalidArgument,
              {"slice index -4 of dimension 0 out of bounds."});
  Masks two;
  two.ellipsis = 3;
  ExpectError(Slice(M34(), {0, 0}, {0, 0}, {1, 1}, two, &out),
              absl::StatusCode::kInvalidArgument,
              {"Multiple ellipses in slice spec not allowed"});
  ExpectError(Slice(M34(), {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Index out of range using input dim 2"});
  ExpectError(Slice(M34(), {0, 0}, {1}, {1, 1}, {}, &out),
              absl::StatusCode::kInvalidArgument,
              {"Expected begin, end, and strides to be 1D equal size tensors"});
}

// Python-style reference for one dim: indices picked by [b:e:s] with
// optional masks.
std::vector<int> PyRange(int n, int b, int e, int s, bool bm, bool em) {
  std::vector<int> out;
  auto clamp = [&](int x, bool is_end) {
    if (x < 0) x += n;
    if (s > 0) return std::max(0, std::min(n, x));
    return std::max(-1, std::min(n - 1, x));
  };
  int lo = bm ? (s > 0 ? 0 : n - 1) : clamp(b, false);
  int hi = em ? (s > 0 ? n : -1) : clamp(e, true);
  for (int i = lo; s > 0 ? i < hi : i > hi; i += s) out.push_back(i);
  return out;
}

TEST(StridedSliceOpTest, MatchesPythonSemantics2D) {
  const Tensor x = M34();
  const std::vector<int> points = {-5, -3, -1, 0, 1, 2, 4, 6};
  const std::vector<int> strides = {-3, -1, 1, 2};
  int checked = 0;
  for (int b0 : points)
    for (int e0 : points)
      for (int s0 : strides)
        for (int mask = 0; mask < 4; ++mask) {
          const int b1 = (b0 + 7) % 5 - 2, e1 = (e0 + 3) % 6 - 1;
          const int s1 = strides[((b0 + e0) % 4 + 4) % 4];
          Masks m;
          m.begin = mask & 1 ? 1 : 0;
          m.end = mask & 2 ? 2 : 0;
          Tensor out;
          ASSERT_TRUE(Slice(x, {b0, b1}, {e0, e1}, {s0, s1}, m, &out).ok());
          const std::vector<int> r = PyRange(3, b0, e0, s0, m.begin & 1, false);
          const std::vector<int> c = PyRange(4, b1, e1, s1, false, m.end & 2);
          std::vector<int32_t> expected;
          for (int i : r)
            for (int j : c) expected.push_back(i * 4 + j);
          ExpectTensor<int32_t>(out,
                                TensorShape({static_cast<int64_t>(r.size()),
                                             static_cast<int64_t>(c.size())}),
                                expected);
          ++checked;
        }
  EXPECT_EQ(checked, 8 * 8 * 4 * 4);
}

}  // namespace
}  // namespace stepflow
