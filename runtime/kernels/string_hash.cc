#include "runtime/kernels/string_hash.h"

#include <cstring>

#include "farmhash.h"

namespace stepflow {
namespace {

uint64_t LoadLittle64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

}  // namespace

uint64_t Fingerprint64(absl::string_view s) {
  return util::Fingerprint64(s.data(), s.size());
}

uint64_t Hash64(absl::string_view s, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = seed ^ (n * m);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t k = LoadLittle64(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;)
      h ^= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint64_t SipHash24(const uint64_t key[2], absl::string_view s) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
  uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
  uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
  uint64_t v3 = 0x7465646279746573ULL ^ key[1];
  auto round = [&] {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  };
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; n -= 8, p += 8) {
    const uint64_t m = LoadLittle64(p);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(s.size() & 0xff) << 56;
  for (size_t i = 0; i < n; ++i)
    last |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  round();
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace stepflow
