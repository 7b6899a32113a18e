#include "runtime/framework/tensor.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/framework/cpu_allocator.h"
#include "runtime/framework/memory_budget.h"

namespace stepflow {
namespace {

TEST(TensorTest, DefaultIsUninitialized) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DT_INVALID);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.raw_data(), nullptr);
  EXPECT_EQ(t.TotalBytes(), 0u);
}

TEST(TensorTest, ZeroFilledAndAligned) {
  Tensor t(DT_FLOAT, TensorShape({3, 5}));
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.NumElements(), 15);
  EXPECT_EQ(t.TotalBytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t.flat<float>()(i), 0.0f);
  Tensor empty(DT_INT32, TensorShape({0, 4}));
  EXPECT_TRUE(empty.IsInitialized());
  EXPECT_EQ(empty.NumElements(), 0);
}

TEST(TensorTest, StringElementsConstructedAndCopied) {
  Tensor t(DT_STRING, TensorShape({2}));
  EXPECT_EQ(t.flat<std::string>()(0), "");
  t.flat<std::string>()(0) = std::string(100, 'x');  // Heap-allocated.
  t.flat<std::string>()(1) = "b";
  Tensor copy = t.DeepCopy();
  EXPECT_FALSE(copy.SharesBufferWith(t));
  t.flat<std::string>()(1) = "changed";
  EXPECT_EQ(copy.flat<std::string>()(0), std::string(100, 'x'));
  EXPECT_EQ(copy.flat<std::string>()(1), "b");
}

TEST(TensorTest, UninitializedFillLeavesOnlyPlainBytesUnwritten) {
  // Strings are constructed whatever the fill: a kernel may assign them.
  Tensor strings;
  ASSERT_TRUE(Tensor::Allocate(cpu_allocator(), DT_STRING, TensorShape({3}),
                               &strings, TensorFill::kUninitialized)
                  .ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(strings.flat<std::string>()(i), "");
  strings.flat<std::string>()(2) = std::string(100, 'y');  // no crash

  // The explicit default still zero-fills.
  Tensor zeros;
  ASSERT_TRUE(Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({8}),
                               &zeros, TensorFill::kZeros)
                  .ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(zeros.flat<float>()(i), 0.0f);

  Tensor floats;
  ASSERT_TRUE(Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({8}),
                               &floats, TensorFill::kUninitialized)
                  .ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(floats.raw_data()) % 64, 0u);
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  // Debug and sanitizer builds mark every unwritten element as NaN.
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::isnan(floats.flat<float>()(i)));
#endif
}

TEST(TensorTest, CopiesShareBuffer) {
  Tensor a = Tensor::Vector<int32_t>({1, 2, 3});
  EXPECT_TRUE(a.RefCountIsOne());
  {
    Tensor b = a;
    EXPECT_TRUE(b.SharesBufferWith(a));
    EXPECT_FALSE(a.RefCountIsOne());
    b.flat<int32_t>()(0) = 9;
  }
  EXPECT_TRUE(a.RefCountIsOne());
  EXPECT_EQ(a.flat<int32_t>()(0), 9);
  Tensor moved = std::move(a);
  EXPECT_TRUE(moved.RefCountIsOne());
  EXPECT_FALSE(a.IsInitialized());  // NOLINT(bugprone-use-after-move)
}

TEST(TensorTest, BitcastFrom) {
  Tensor a = Tensor::Vector<float>({1, 2, 3, 4, 5, 6});
  Tensor b;
  ASSERT_TRUE(b.BitcastFrom(a, TensorShape({2, 3})).ok());
  EXPECT_TRUE(b.SharesBufferWith(a));
  EXPECT_EQ(b.matrix<float>()(1, 0), 4.0f);
  EXPECT_EQ(b.BitcastFrom(a, TensorShape({4})).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(b.CopyFrom(a, TensorShape({5})));
  EXPECT_TRUE(b.CopyFrom(a, TensorShape({6, 1})));
  Tensor uninit;
  EXPECT_EQ(b.BitcastFrom(uninit, TensorShape({})).code(),
            absl::StatusCode::kInvalidArgument);
  // Self-bitcast keeps the data.
  ASSERT_TRUE(a.BitcastFrom(a, TensorShape({3, 2})).ok());
  EXPECT_EQ(a.matrix<float>()(2, 1), 6.0f);
}

TEST(TensorTest, ShapedToPadsAndCollapses) {
  Tensor t(DT_INT32, TensorShape({2, 3, 4}));
  auto m = t.shaped_to<int32_t, 2>();
  EXPECT_EQ(m.dimension(0), 6);
  EXPECT_EQ(m.dimension(1), 4);
  auto p = t.shaped_to<int32_t, 4>();
  EXPECT_EQ(p.dimension(0), 1);
  EXPECT_EQ(p.dimension(3), 4);
}

TEST(TensorTest, SummarizeValue) {
  EXPECT_EQ(Tensor::Vector<int32_t>({1, 2, 3}).SummarizeValue(10), "[1 2 3]");
  Tensor m(DT_INT32, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) m.flat<int32_t>()(i) = i + 1;
  EXPECT_EQ(m.SummarizeValue(10), "[[1 2][3 4]]");
  EXPECT_EQ(m.SummarizeValue(3), "[[1 2][3...]]");
  EXPECT_EQ(m.SummarizeValue(2), "[[1 2]...]");
  EXPECT_EQ(Tensor::Scalar<int64_t>(42).SummarizeValue(3), "42");
  EXPECT_EQ(Tensor::Vector<bool>({true, false}).SummarizeValue(5), "[1 0]");
  EXPECT_EQ(Tensor::Vector<std::string>({"ab", "c d"}).SummarizeValue(5),
            "[ab c d]");
  EXPECT_EQ(Tensor::Vector<float>({1.5f, -2}).SummarizeValue(5), "[1.5 -2]");
  EXPECT_EQ(Tensor::Vector<int8_t>({-3, 4}).SummarizeValue(5), "[-3 4]");
  EXPECT_EQ(Tensor::Vector<half>({half(0.5f)}).SummarizeValue(5), "[0.5]");
  EXPECT_EQ(Tensor::Vector<complex64>({complex64(1, 2)}).SummarizeValue(5),
            "[(1,2)]");
  EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({0})).SummarizeValue(5), "[]");
  EXPECT_EQ(Tensor::Vector<int32_t>({1, 2, 3}).SummarizeValue(-1), "[1 2 3]");
}

// An empty tensor shows that it is empty and its shape, never a truncation
// ("[...]") that would suggest hidden values.
TEST(TensorTest, SummarizeValueOfEmptyTensorsShowsTheShape) {
  for (int64_t max_entries : {int64_t{-1}, int64_t{0}, int64_t{16}}) {
    EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({0})).SummarizeValue(max_entries),
              "[]");
    EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({2, 0})).SummarizeValue(max_entries),
              "[] (shape [2,0])");
    EXPECT_EQ(Tensor(DT_INT32, TensorShape({0, 3})).SummarizeValue(max_entries),
              "[] (shape [0,3])");
    EXPECT_EQ(
        Tensor(DT_STRING, TensorShape({1, 0, 2})).SummarizeValue(max_entries),
        "[] (shape [1,0,2])");
  }
  EXPECT_EQ(Tensor(DT_BOOL, TensorShape({2, 0})).DebugString(),
            "Tensor<type: bool shape: [2,0] values: []>");
  // A non-empty tensor with nothing to print is still a truncation.
  EXPECT_EQ(Tensor::Vector<int32_t>({1, 2}).SummarizeValue(0), "[...]");
}

TEST(TensorTest, DebugString) {
  EXPECT_EQ(Tensor::Vector<float>({1, 2}).DebugString(),
            "Tensor<type: float shape: [2] values: [1 2]>");
  EXPECT_NE(Tensor().DebugString().find("uninitialized"), std::string::npos);
}

TEST(TensorTest, ResourceElements) {
  Tensor t(DT_RESOURCE, TensorShape({}));
  t.scalar<ResourceHandleProto>().set_name("v");
  Tensor copy = t.DeepCopy();
  EXPECT_EQ(copy.scalar<ResourceHandleProto>().name(), "v");
  EXPECT_NE(t.SummarizeValue(1).find("name=\"v\""), std::string::npos);
}

TEST(TensorTest, AllocateReportsOomNamingShapeTypeBytesAndAllocator) {
  MemoryBudget budget("cpu", 1 << 20);
  CpuAllocator allocator(&budget);
  Tensor t = Tensor::Scalar<int32_t>(7);
  // 4 TiB of floats: refused before any memory is touched.
  absl::Status s = Tensor::Allocate(&allocator, DT_FLOAT,
                                    TensorShape({1048576, 1048576}), &t);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_NE(s.message().find("OOM when allocating tensor with "
                             "shape[1048576,1048576] and type float by "
                             "allocator cpu"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("4398046511104 bytes"), std::string::npos) << s;
  EXPECT_NE(s.message().find("limit 1048576"), std::string::npos) << s;
  // The output is untouched on error.
  EXPECT_EQ(t.scalar<int32_t>(), 7);
  EXPECT_EQ(budget.bytes_in_use(), 0);
}

TEST(TensorTest, AllocateChargesTheBudgetUntilTheLastReferenceGoes) {
  MemoryBudget budget("cpu", 1000);
  CpuAllocator allocator(&budget);
  Tensor t;
  ASSERT_TRUE(
      Tensor::Allocate(&allocator, DT_FLOAT, TensorShape({100}), &t).ok());
  EXPECT_EQ(budget.bytes_in_use(), 400);
  EXPECT_EQ(t.flat<float>()(99), 0.0f);
  Tensor copy = t;
  Tensor second;
  EXPECT_TRUE(absl::IsResourceExhausted(
      Tensor::Allocate(&allocator, DT_FLOAT, TensorShape({200}), &second)));
  t = Tensor();
  EXPECT_EQ(budget.bytes_in_use(), 400);
  copy = Tensor();
  EXPECT_EQ(budget.bytes_in_use(), 0);
  ASSERT_TRUE(
      Tensor::Allocate(&allocator, DT_STRING, TensorShape({2}), &second).ok());
  EXPECT_EQ(second.flat<std::string>()(1), "");
  Tensor deep;
  ASSERT_TRUE(second.DeepCopyTo(&allocator, &deep).ok());
  EXPECT_FALSE(deep.SharesBufferWith(second));
}

TEST(TensorTest, AllocateRefusesBadTypesAndShapes) {
  Tensor t;
  EXPECT_TRUE(absl::IsInvalidArgument(
      Tensor::Allocate(cpu_allocator(), DT_FLOAT_REF, TensorShape({1}), &t)));
  EXPECT_TRUE(absl::IsInvalidArgument(
      Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({-1}), &t)));
  // An element count that overflows int64.
  EXPECT_TRUE(absl::IsInvalidArgument(
      Tensor::Allocate(cpu_allocator(), DT_FLOAT,
                       TensorShape({int64_t{1} << 40, 1 << 30}), &t)));
  // Unbudgeted, an impossible size is ResourceExhausted, not an abort.
  absl::Status s = Tensor::Allocate(cpu_allocator(), DT_DOUBLE,
                                    TensorShape({int64_t{1} << 58}), &t);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_FALSE(t.IsInitialized());
}

TEST(TensorDeathTest, TypeMismatchAborts) {
  Tensor t(DT_FLOAT, TensorShape({2}));
  EXPECT_DEATH(t.flat<int32_t>(), "holds float but was accessed as int32");
  EXPECT_DEATH(t.matrix<float>(), "rank");
}

// A payload that counts its live instances.
struct CountedPayload : public VariantPayload {
  explicit CountedPayload(int* live) : live(live) { ++*live; }
  ~CountedPayload() override { --*live; }
  std::string TypeName() const override { return "Counted"; }
  std::string DebugString() const override { return "Counted"; }
  int* live;
};

TEST(TensorTest, VariantElementsShareAndFreeTheirPayloads) {
  int live = 0;
  {
    Tensor t(DT_VARIANT, TensorShape({2}));
    EXPECT_TRUE(t.flat<Variant>()(1).is_empty());
    t.flat<Variant>()(0) =
        Variant(std::make_shared<const CountedPayload>(&live));
    EXPECT_EQ(live, 1);
    Tensor copy = t.DeepCopy();
    EXPECT_EQ(live, 1);  // Payloads are immutable: the copy shares them.
    EXPECT_NE(copy.flat<Variant>()(0).get<CountedPayload>(), nullptr);
    EXPECT_EQ(copy.flat<Variant>()(0).TypeName(), "Counted");
    EXPECT_EQ(t.SummarizeValue(4), "[<Counted> <Variant<empty>>]");
  }
  EXPECT_EQ(live, 0);
}

TEST(TensorDeathTest, UnsupportedTypeAborts) {
  EXPECT_DEATH(Tensor(DT_FLOAT_REF, TensorShape({1})), "float_ref");
  EXPECT_DEATH(Tensor(DT_QINT8, TensorShape({1})), "qint8");
}

}  // namespace
}  // namespace stepflow
