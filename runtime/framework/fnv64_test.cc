// Fnv64 against a byte-at-a-time FNV-1a written from the definition: the
// integer and string updates must feed exactly the documented bytes (the
// published test vectors are checked in sim/env/sim_random_test.cc).
#include "runtime/framework/fnv64.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

// FNV-1a over `bytes`, from `state`.
uint64_t Reference(uint64_t state, const std::vector<unsigned char>& bytes) {
  for (unsigned char b : bytes) {
    state ^= b;
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::vector<unsigned char> LittleEndian(uint64_t v) {
  std::vector<unsigned char> out;
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<unsigned char>(v >> (8 * i)));
  return out;
}

TEST(Fnv64Test, UpdateU64FeedsEightLittleEndianBytes) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  0xff,
                                  0x100,
                                  0xffffffffffffffffULL,
                                  0x8000000000000000ULL,
                                  0x0102030405060708ULL,
                                  0x00ff00ff00ff00ffULL};
  // A non-zero byte alone at every position, and every length of run of
  // low bytes.
  for (int i = 0; i < 8; ++i) {
    values.push_back(uint64_t{0xa5} << (8 * i));
    values.push_back((uint64_t{1} << (8 * i)) - 1);
  }
  for (uint64_t v : values) {
    for (uint64_t start : {Fnv64::kOffsetBasis, uint64_t{0}, uint64_t{12345}}) {
      Fnv64 h(start);
      h.UpdateU64(v);
      EXPECT_EQ(h.value(), Reference(start, LittleEndian(v))) << v;
    }
  }
}

TEST(Fnv64Test, UpdateStringIsLengthThenBytes) {
  for (const std::string& s : {std::string(), std::string("label"),
                               std::string(300, 'x'), std::string("a\0b", 3)}) {
    std::vector<unsigned char> bytes = LittleEndian(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    Fnv64 h;
    h.UpdateString(s);
    EXPECT_EQ(h.value(), Reference(Fnv64::kOffsetBasis, bytes)) << s.size();
  }
  Fnv64 a, b;
  a.UpdateI64(-2);
  b.UpdateU64(0xfffffffffffffffeULL);
  EXPECT_EQ(a.value(), b.value());
}

}  // namespace
}  // namespace stepflow
