// Philox4x32-10 against Random123's known-answer vectors, the stream layout,
// per-invocation reservation, and the sample conversions.
#include "runtime/kernels/philox_random.h"

#include <cstdint>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/variable_test_util.h"

namespace stepflow {
namespace {

using Block = PhiloxRandom::Block;

// Random123 tests/kat_vectors, "philox4x32 10": counter, key -> output.
TEST(PhiloxRandomTest, KnownAnswers) {
  EXPECT_EQ(PhiloxRandom::Compute({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      PhiloxRandom::Compute({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                            {0xffffffff, 0xffffffff}),
      (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      PhiloxRandom::Compute({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                            {0xa4093822, 0x299f31d0}),
      (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxRandomTest, StreamLayoutIsSeedKeyAndSeed2Counter) {
  const uint64_t seed = 0x0123456789abcdefULL, seed2 = 0xfedcba9876543210ULL;
  PhiloxRandom gen(seed, seed2);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(gen(), PhiloxRandom::Compute({i, 0, 0x76543210, 0xfedcba98},
                                           {0x89abcdef, 0x01234567}));
  }
  EXPECT_EQ(gen.position(), 3u);
}

TEST(PhiloxRandomTest, SkipCarriesIntoTheHighWord) {
  PhiloxRandom a(5, 6), b(5, 6);
  a.Skip(0x100000000ULL);
  EXPECT_EQ(a.position(), 0x100000000ULL);
  EXPECT_EQ(a(), PhiloxRandom::Compute({0, 1, 6, 0}, {5, 0}));
  b.Skip(7);
  PhiloxRandom c(5, 6);
  for (int i = 0; i < 7; ++i) c();
  EXPECT_EQ(b(), c());
}

TEST(GuardedPhiloxRandomTest, ReservationsAreConsecutiveRanges) {
  GuardedPhiloxRandom g;
  ASSERT_TRUE(g.Init(1, 2, nullptr).ok());
  PhiloxRandom first = g.ReserveBlocks(3);
  PhiloxRandom second = g.ReserveBlocks(5);
  PhiloxRandom third = g.ReserveBlocks(1);
  EXPECT_EQ(first.position(), 0u);
  EXPECT_EQ(second.position(), 3u);
  EXPECT_EQ(third.position(), 8u);
  PhiloxRandom expect(1, 2);
  expect.Skip(3);
  EXPECT_EQ(second(), expect());
}

TEST(GuardedPhiloxRandomTest, ZeroSeedsDrawTheKeyFromRandom) {
  GuardedPhiloxRandom no_source;
  EXPECT_EQ(no_source.Init(0, 0, nullptr).code(),
            absl::StatusCode::kFailedPrecondition);

  test::SeededRandom r1(42), r1_again(42), r2(43);
  GuardedPhiloxRandom a, b, c;
  ASSERT_TRUE(a.Init(0, 0, &r1).ok());
  ASSERT_TRUE(b.Init(0, 0, &r1_again).ok());
  ASSERT_TRUE(c.Init(0, 0, &r2).ok());
  EXPECT_EQ(r1.draws(), 2);
  const Block ba = a.ReserveBlocks(1)(), bb = b.ReserveBlocks(1)(),
              bc = c.ReserveBlocks(1)();
  EXPECT_EQ(ba, bb);
  EXPECT_NE(ba, bc);

  // A nonzero seed never touches the random source.
  test::SeededRandom unused(1);
  GuardedPhiloxRandom d;
  ASSERT_TRUE(d.Init(0, 9, &unused).ok());
  EXPECT_EQ(unused.draws(), 0);
}

TEST(RandomDistributionsTest, UniformBounds) {
  EXPECT_EQ(UniformFloat(0), 0.0f);
  EXPECT_LT(UniformFloat(0xffffffffu), 1.0f);
  EXPECT_GT(UniformFloat(0xffffffffu), 0.9999f);
  EXPECT_EQ(UniformDouble(0, 0), 0.0);
  EXPECT_LT(UniformDouble(~0u, ~0u), 1.0);
  EXPECT_GT(UniformDouble(~0u, ~0u), 0.9999999);
  EXPECT_EQ(static_cast<float>(UniformHalf(0)), 0.0f);
  EXPECT_EQ(static_cast<float>(UniformHalf(0x3ff)), 1023.0f / 1024);
  EXPECT_EQ(static_cast<float>(UniformBfloat16(0x7f)), 127.0f / 128);
}

// TensorFlow's conversions use the low mantissa bits of each word (the high
// bits of the first word for double are dropped).
TEST(RandomDistributionsTest, UniformUsesTheLowBits) {
  EXPECT_EQ(UniformFloat(0xff800000u), 0.0f);
  EXPECT_EQ(UniformFloat(0x00400000u), 0.5f);
  EXPECT_EQ(UniformDouble(0xfff80000u, 0), 0.5);
  EXPECT_EQ(UniformDouble(0, 1), 1.0 / 4503599627370496.0);
  EXPECT_EQ(static_cast<float>(UniformHalf(0xfc00u | 0x200u)), 0.5f);
}

TEST(RandomDistributionsTest, WordStreamReadsBlocksInOrder) {
  PhiloxRandom gen(3, 4);
  const Block b0 = PhiloxRandom(3, 4)();
  RandomWordStream s(gen);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s.Next32(), b0[i]);
  PhiloxRandom second(3, 4);
  second.Skip(1);
  EXPECT_EQ(s.Next32(), second()[0]);
}

TEST(RandomDistributionsTest, GroupsTakeTheirValuesFromOneBlock) {
  const Block b = PhiloxRandom(5, 6)();
  float f[4];
  UniformGroup<float>(b, f);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(f[i], UniformFloat(b[i]));
  double d[2];
  UniformGroup<double>(b, d);
  EXPECT_EQ(d[1], UniformDouble(b[2], b[3]));
  NormalGroup<double>(b, d);
  double d0, d1;
  BoxMullerDouble(b[0], b[1], b[2], b[3], &d0, &d1);
  EXPECT_EQ(d[0], d0);
  EXPECT_EQ(d[1], d1);
}

TEST(RandomDistributionsTest, UniformIntCoversRangeWithoutOverflow) {
  PhiloxRandom gen(11, 12);
  std::set<int32_t> seen;
  for (int i = 0; i < 250; ++i) {
    int32_t v[4];
    UniformIntGroup<int32_t>(gen(), -3, 4, v);
    for (int32_t x : v) {
      ASSERT_GE(x, -3);
      ASSERT_LT(x, 4);
      seen.insert(x);
    }
  }
  EXPECT_EQ(seen.size(), 7u);
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  bool negative = false, positive = false;
  for (int i = 0; i < 50; ++i) {
    int64_t v[2];
    UniformIntGroup<int64_t>(gen(), lo, hi, v);
    for (int64_t x : v) {
      ASSERT_LT(x, hi);
      negative |= x < 0;
      positive |= x > 0;
    }
  }
  EXPECT_TRUE(negative && positive);
}

// Values TensorFlow 2.21's CPU kernels draw for seed=7, seed2=11 (first
// elements of RandomUniform float and RandomUniformInt int32 in [-5, 17)),
// recorded by the op differential (testing/tf_goldens/ops).
TEST(RandomDistributionsTest, TensorFlowStreamLayout) {
  PhiloxRandom gen(7, 11);
  const Block b = gen();
  float f[4];
  UniformGroup<float>(b, f);
  int32_t v[4];
  UniformIntGroup<int32_t>(b, -5, 17, v);
  EXPECT_EQ(f[0], 0x1.7be28p-6f);
  EXPECT_EQ(f[1], 0x1.97804p-4f);
  EXPECT_EQ(f[2], 0x1.23648cp-1f);
  EXPECT_EQ(f[3], 0x1.2b1ff4p-1f);
  EXPECT_EQ(v[0], -2);
  EXPECT_EQ(v[1], 13);
  EXPECT_EQ(v[2], 16);
  EXPECT_EQ(v[3], 0);
}

}  // namespace
}  // namespace stepflow
