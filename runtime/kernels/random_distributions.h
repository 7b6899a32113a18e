// Turning Philox output into samples exactly as TensorFlow's CPU kernels do,
// so a seeded random op draws TensorFlow's values bit for bit (up to the
// platform's libm for the transcendental functions of Box-Muller).
//
// Conversions (one 32-bit Philox word, or two for double):
//   float:    the low 23 bits as the mantissa of a float in [1, 2), minus 1;
//   double:   the low 20 bits of the first word and all 32 of the second as
//             the mantissa of a double in [1, 2), minus 1;
//   half:     the low 10 bits, likewise; bfloat16: the low 7 bits.
// Normals use the Box-Muller transform on pairs of uniforms (the first
// clamped below at 1e-7), computed in float (half, bfloat16, float) or
// double. Bounded integers take a 32-bit word (int32) or two words, low word
// first (int64), modulo the range.
//
// Output layout (TensorFlow's FillPhiloxRandom): a kernel's output is split
// into groups of kGroupSize values; group g of a fixed-size distribution is
// computed from block g of the reserved range; group g of the truncated
// normal (a variable number of words per value) reads words one at a time
// from block g * kTruncatedSkip onwards. Every run reserves 256 blocks per
// output value (kBlocksReservedPerValue), so runs never share blocks.
//
// Not thread-safe: one sampler per kernel invocation.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_DISTRIBUTIONS_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_DISTRIBUTIONS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/framework/types.h"
#include "runtime/kernels/philox_random.h"

namespace stepflow {

// Blocks a kernel run reserves per output value (TensorFlow reserves 256
// samples of 128 bits per output).
constexpr uint64_t kBlocksReservedPerValue = 256;

// The words of a generator one at a time, in block order (TensorFlow's
// SingleSampleAdapter).
class RandomWordStream {
 public:
  explicit RandomWordStream(PhiloxRandom gen) : gen_(gen) {}

  uint32_t Next32() {
    if (pos_ == 4) {
      block_ = gen_();
      pos_ = 0;
    }
    return block_[pos_++];
  }

 private:
  PhiloxRandom gen_;
  PhiloxRandom::Block block_{};
  int pos_ = 4;
};

// [0, 1) from the low 23 bits of x.
inline float UniformFloat(uint32_t x) {
  const uint32_t bits = (uint32_t{127} << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// [0, 1) from the low 20 bits of hi and the 32 bits of lo.
inline double UniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t man = (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  const uint64_t bits = (uint64_t{1023} << 52) | man;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// [0, 1) from the low 10 (half) or 7 (bfloat16) bits of x.
inline half UniformHalf(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::numext::bit_cast<half>(bits) - half(1.0f);
}
inline bfloat16 UniformBfloat16(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::numext::bit_cast<bfloat16>(bits) - bfloat16(1.0f);
}

// Two standard normals from two words (float) or four words (double).
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = UniformFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  // 2 * pi is a double: the product is rounded to float once.
  const float v1 = static_cast<float>(2.0f * M_PI * UniformFloat(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* d0, double* d1) {
  double u1 = UniformDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * UniformDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

// Values per output group: four from a block, two for 64-bit types.
template <typename T>
constexpr int kGroupSize = sizeof(T) == 8 ? 2 : 4;

// Uniform [0, 1) values of T from one block.
template <typename T>
void UniformGroup(const PhiloxRandom::Block& b, T out[kGroupSize<T>]) {
  for (int i = 0; i < kGroupSize<T>; ++i) {
    if constexpr (std::is_same<T, double>::value) {
      out[i] = UniformDouble(b[2 * i], b[2 * i + 1]);
    } else if constexpr (std::is_same<T, float>::value) {
      out[i] = UniformFloat(b[i]);
    } else if constexpr (std::is_same<T, half>::value) {
      out[i] = UniformHalf(b[i]);
    } else {
      out[i] = UniformBfloat16(b[i]);
    }
  }
}

// Standard normals of T from one block.
template <typename T>
void NormalGroup(const PhiloxRandom::Block& b, T out[kGroupSize<T>]) {
  if constexpr (std::is_same<T, double>::value) {
    BoxMullerDouble(b[0], b[1], b[2], b[3], &out[0], &out[1]);
  } else {
    for (int i = 0; i < 4; i += 2) {
      float f0, f1;
      BoxMullerFloat(b[i], b[i + 1], &f0, &f1);
      out[i] = static_cast<T>(f0);
      out[i + 1] = static_cast<T>(f1);
    }
  }
}

// Blocks between the starts of consecutive truncated-normal groups.
template <typename T>
constexpr uint64_t kTruncatedSkip = kGroupSize<T>* kBlocksReservedPerValue / 4;

// Standard normals of T conditioned on |z| < 2 (tested before conversion to
// T), drawn by rejection from `s`.
template <typename T>
void TruncatedNormalGroup(RandomWordStream* s, T out[kGroupSize<T>]) {
  int index = 0;
  for (;;) {
    if constexpr (std::is_same<T, double>::value) {
      const uint32_t x0 = s->Next32(), x1 = s->Next32();
      const uint32_t x2 = s->Next32(), x3 = s->Next32();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (double v : d) {
        if (std::abs(v) < 2.0) {
          out[index++] = v;
          if (index == kGroupSize<T>) return;
        }
      }
    } else {
      const uint32_t x0 = s->Next32(), x1 = s->Next32();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float v : f) {
        if (std::abs(v) < 2.0f) {
          out[index++] = static_cast<T>(v);
          if (index == kGroupSize<T>) return;
        }
      }
    }
  }
}

// Value i of a block's unsigned 32-bit (one word) or 64-bit (two words,
// low first) values.
template <typename U>
U BlockBits(const PhiloxRandom::Block& b, int i) {
  if constexpr (sizeof(U) == 8) {
    return static_cast<U>(b[2 * i]) | static_cast<U>(b[2 * i + 1]) << 32;
  } else {
    return static_cast<U>(b[i]);
  }
}

// Uniform integers in [lo, hi) from one block; requires lo < hi.
template <typename T>
void UniformIntGroup(const PhiloxRandom::Block& b, T lo, T hi,
                     T out[kGroupSize<T>]) {
  using U = typename std::make_unsigned<T>::type;
  const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  for (int i = 0; i < kGroupSize<T>; ++i) {
    const U bits = BlockBits<U>(b, i);
    out[i] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
  }
}

// Doubles of a two-per-block distribution (UniformGroup<double> or
// NormalGroup<double>) for samplers that draw one value at a time: a block
// is drawn when none is left and its two values are handed out last first,
// the order of TensorFlow's rejection samplers (gamma, Poisson).
template <void (*kGroup)(const PhiloxRandom::Block&, double*)>
class DoubleDraws {
 public:
  double Next(PhiloxRandom* gen) {
    if (remaining_ == 0) {
      kGroup((*gen)(), values_);
      remaining_ = 2;
    }
    return values_[--remaining_];
  }

 private:
  double values_[2];
  int remaining_ = 0;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_DISTRIBUTIONS_H_
