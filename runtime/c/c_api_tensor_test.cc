// TF_Tensor: allocation, caller-owned memory with deallocators, accessors
// and rejected shapes/sizes.
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"

namespace {

TEST(CApiTensorTest, AllocateGivesZeroedStorageOfTheShape) {
  const int64_t dims[] = {2, 3};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 2, 6 * sizeof(float));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), 2);
  EXPECT_EQ(TF_Dim(t, 0), 2);
  EXPECT_EQ(TF_Dim(t, 1), 3);
  EXPECT_EQ(TF_Dim(t, 2), -1);
  EXPECT_EQ(TF_Dim(t, -1), -1);
  EXPECT_EQ(TF_TensorElementCount(t), 6);
  EXPECT_EQ(TF_TensorByteSize(t), 6 * sizeof(float));
  const float* data = static_cast<const float*>(TF_TensorData(t));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(data[i], 0.0f);
  TF_DeleteTensor(t);
}

TEST(CApiTensorTest, AllocateRejectsWrongLengthAndNegativeDims) {
  const int64_t dims[] = {2, 3};
  EXPECT_EQ(TF_AllocateTensor(TF_FLOAT, dims, 2, 5 * sizeof(float)), nullptr);
  // A larger length is accepted, as in TensorFlow; the shape decides.
  TF_Tensor* larger = TF_AllocateTensor(TF_FLOAT, dims, 2, 7 * sizeof(float));
  ASSERT_NE(larger, nullptr);
  EXPECT_EQ(TF_TensorByteSize(larger), 6 * sizeof(float));
  TF_DeleteTensor(larger);
  const int64_t negative[] = {2, -1};
  EXPECT_EQ(TF_AllocateTensor(TF_FLOAT, negative, 2, 0), nullptr);
  EXPECT_EQ(TF_AllocateTensor(TF_FLOAT, nullptr, 1, 4), nullptr);
  EXPECT_EQ(TF_AllocateTensor(static_cast<TF_DataType>(0), nullptr, 0, 4),
            nullptr);
  EXPECT_EQ(TF_AllocateTensor(static_cast<TF_DataType>(101), nullptr, 0, 4),
            nullptr);
}

TEST(CApiTensorTest, AllocateStringHoldsOneTStringPerElement) {
  const int64_t dims[] = {1};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 24);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TF_TensorType(t), TF_STRING);
  EXPECT_EQ(TF_TensorByteSize(t), 24u);
  ASSERT_NE(TF_TensorData(t), nullptr);
  std::memset(TF_TensorData(t), 7, 24);  // All 24 bytes are usable.
  EXPECT_EQ(TF_AllocateTensor(TF_STRING, dims, 1, 23), nullptr);
  TF_DeleteTensor(t);
}

TEST(CApiTensorTest, EmptyTensor) {
  const int64_t dims[] = {0, 5};
  TF_Tensor* t = TF_AllocateTensor(TF_INT32, dims, 2, 0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TF_TensorElementCount(t), 0);
  EXPECT_EQ(TF_TensorByteSize(t), 0u);
  TF_DeleteTensor(t);
}

struct Dealloc {
  int calls = 0;
  void* data = nullptr;
  size_t len = 0;
};

void RecordDealloc(void* data, size_t len, void* arg) {
  auto* d = static_cast<Dealloc*>(arg);
  ++d->calls;
  d->data = data;
  d->len = len;
}

TEST(CApiTensorTest, NewTensorUsesCallerMemoryUntilDeleted) {
  // Aligned as TF_TensorDefaultAlignment() asks (unaligned data is copied).
  alignas(64) double values[3] = {1.5, 2.5, 3.5};
  const int64_t dims[] = {3};
  Dealloc d;
  TF_Tensor* t = TF_NewTensor(TF_DOUBLE, dims, 1, values, sizeof(values),
                              RecordDealloc, &d);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(TF_TensorData(t), values);
  EXPECT_EQ(TF_TensorByteSize(t), sizeof(values));
  EXPECT_EQ(TF_TensorType(t), TF_DOUBLE);
  EXPECT_EQ(TF_Dim(t, 0), 3);
  EXPECT_EQ(d.calls, 0);
  TF_DeleteTensor(t);
  EXPECT_EQ(d.calls, 1);
  EXPECT_EQ(d.data, values);
  EXPECT_EQ(d.len, sizeof(values));
}

TEST(CApiTensorTest, NewTensorWithWrongLengthFailsAndReleasesTheData) {
  float values[3] = {1, 2, 3};
  const int64_t dims[] = {4};
  Dealloc d;
  EXPECT_EQ(TF_NewTensor(TF_FLOAT, dims, 1, values, sizeof(values),
                         RecordDealloc, &d),
            nullptr);
  EXPECT_EQ(d.calls, 1);
  const int64_t negative[] = {-3};
  EXPECT_EQ(TF_NewTensor(TF_FLOAT, negative, 1, values, sizeof(values),
                         RecordDealloc, &d),
            nullptr);
  EXPECT_EQ(d.calls, 2);
}

TEST(CApiTensorTest, NewTensorWithoutDeallocator) {
  int32_t v = 42;
  TF_Tensor* t =
      TF_NewTensor(TF_INT32, nullptr, 0, &v, sizeof(v), nullptr, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(*static_cast<int32_t*>(TF_TensorData(t)), 42);
  TF_DeleteTensor(t);
  TF_DeleteTensor(nullptr);
}

}  // namespace
