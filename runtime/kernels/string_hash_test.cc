// The string hashes against published reference values: SipHash-2-4's
// test vectors (key 00..0f, message 00..len-1).
#include "runtime/kernels/string_hash.h"

#include <string>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

std::string Bytes(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>(i);
  return s;
}

TEST(SipHash24Test, ReferenceVectors) {
  const uint64_t key[2] = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
  EXPECT_EQ(SipHash24(key, Bytes(0)), 0x726fdb47dd0e0e31ULL);
  EXPECT_EQ(SipHash24(key, Bytes(1)), 0x74f839c593dc67fdULL);
  EXPECT_EQ(SipHash24(key, Bytes(8)), 0x93f5f5799a932462ULL);
  EXPECT_EQ(SipHash24(key, Bytes(15)), 0xa129ca6149be45e5ULL);
}

TEST(Hash64Test, DependsOnEveryByteAndTheSeed) {
  const std::string s = "0123456789";
  std::string t = s;
  t[9] = 'x';
  EXPECT_NE(Hash64(s, 1), Hash64(t, 1));
  EXPECT_NE(Hash64(s, 1), Hash64(s, 2));
  EXPECT_EQ(Hash64(s, 7), Hash64(std::string(s), 7));
}

}  // namespace
}  // namespace stepflow
