#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"

namespace stepflow {
namespace {

using test::ExpectError;
using test::ExpectTensor;
using test::Make;

absl::Status MatMul(const Tensor& a, const Tensor& b, bool ta, bool tb,
                    Tensor* out) {
  std::vector<Tensor> outs;
  absl::Status s = test::RunKernel(test::TestNode("mm", "MatMul")
                                       .Inputs(2)
                                       .Attr("T", a.dtype())
                                       .Attr("transpose_a", ta)
                                       .Attr("transpose_b", tb),
                                   {a, b}, &outs);
  if (!outs.empty()) *out = outs[0];
  return s;
}

// Reference product of row-major a (m x k) and b (k x n).
std::vector<double> Naive(const std::vector<double>& a,
                          const std::vector<double>& b, int m, int k, int n) {
  std::vector<double> out(m * n, 0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) out[i * n + j] += a[i * k + p] * b[p * n + j];
  return out;
}

TEST(MatMulOpTest, Basic) {
  Tensor out;
  ASSERT_TRUE(MatMul(Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
                     Make<float>(TensorShape({3, 2}), {7, 8, 9, 10, 11, 12}),
                     false, false, &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 2}), {58, 64, 139, 154});
}

TEST(MatMulOpTest, Transposes) {
  // a^T with a stored as [3,2]; b^T with b stored as [2,3].
  const Tensor at = Make<double>(TensorShape({3, 2}), {1, 4, 2, 5, 3, 6});
  const Tensor bt = Make<double>(TensorShape({2, 3}), {7, 9, 11, 8, 10, 12});
  const Tensor a = Make<double>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  const Tensor b = Make<double>(TensorShape({3, 2}), {7, 8, 9, 10, 11, 12});
  Tensor out;
  ASSERT_TRUE(MatMul(at, b, true, false, &out).ok());
  ExpectTensor<double>(out, TensorShape({2, 2}), {58, 64, 139, 154});
  ASSERT_TRUE(MatMul(a, bt, false, true, &out).ok());
  ExpectTensor<double>(out, TensorShape({2, 2}), {58, 64, 139, 154});
  ASSERT_TRUE(MatMul(at, bt, true, true, &out).ok());
  ExpectTensor<double>(out, TensorShape({2, 2}), {58, 64, 139, 154});
}

TEST(MatMulOpTest, LargerMatchesNaive) {
  const int m = 17, k = 33, n = 9;
  std::vector<double> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = (i * 7 % 13) - 6;
  for (int i = 0; i < k * n; ++i) b[i] = (i * 5 % 11) - 5;
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  Tensor out;
  ASSERT_TRUE(MatMul(Make<float>(TensorShape({m, k}), af),
                     Make<float>(TensorShape({k, n}), bf), false, false, &out)
                  .ok());
  test::ExpectTensorNear<float>(out, TensorShape({m, n}), Naive(a, b, m, k, n),
                                1e-4);
}

TEST(MatMulOpTest, IntegerAndHalf) {
  Tensor out;
  ASSERT_TRUE(MatMul(Make<int32_t>(TensorShape({1, 2}), {2, 3}),
                     Make<int32_t>(TensorShape({2, 1}), {4, 5}), false, false,
                     &out)
                  .ok());
  ExpectTensor<int32_t>(out, TensorShape({1, 1}), {23});
  ASSERT_TRUE(MatMul(Make<int64_t>(TensorShape({1, 1}), {int64_t{1} << 40}),
                     Make<int64_t>(TensorShape({1, 1}), {4}), false, false,
                     &out)
                  .ok());
  ExpectTensor<int64_t>(out, TensorShape({1, 1}), {int64_t{1} << 42});
  ASSERT_TRUE(MatMul(Make<half>(TensorShape({1, 2}), {half(1.5f), half(2.0f)}),
                     Make<half>(TensorShape({2, 1}), {half(2.0f), half(0.25f)}),
                     false, false, &out)
                  .ok());
  test::ExpectTensorNear<half>(out, TensorShape({1, 1}), {3.5}, 1e-3);
}

TEST(MatMulOpTest, EmptyInnerDimensionGivesZeros) {
  Tensor out;
  ASSERT_TRUE(MatMul(Make<float>(TensorShape({2, 0}), {}),
                     Make<float>(TensorShape({0, 3}), {}), false, false, &out)
                  .ok());
  ExpectTensor<float>(out, TensorShape({2, 3}), {0, 0, 0, 0, 0, 0});
}

TEST(MatMulOpTest, Errors) {
  Tensor out;
  ExpectError(
      MatMul(Make<float>(TensorShape({3}), {1, 2, 3}),
             Make<float>(TensorShape({3, 1}), {1, 2, 3}), false, false, &out),
      absl::StatusCode::kInvalidArgument,
      {"In[0] is not a matrix", "[3]", "{{node mm}}"});
  ExpectError(
      MatMul(Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}),
             Make<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6}), false, false,
             &out),
      absl::StatusCode::kInvalidArgument,
      {"Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]", "{{node mm}}"});
}

}  // namespace
}  // namespace stepflow
