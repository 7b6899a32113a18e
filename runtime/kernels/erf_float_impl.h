// The loops behind erf_float.h, written once over a GCC float vector type
// V and the int32 vector VI of the same size, and compiled by each
// per-ISA source (erf_float_<isa>.cc) with that ISA's flags.
//
// Private to those sources. Everything here has internal linkage and uses
// no inline function of another header, so no out-of-line copy compiled
// for a wide ISA can be shared with (and run by) code built for the
// baseline.
#ifndef STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_IMPL_H_
#define STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_IMPL_H_

#include <cstdint>

#include "runtime/kernels/erf_float.h"
#include "runtime/kernels/isa_loop_util.h"

namespace stepflow {
namespace erf_float {
namespace {

using isa_loop::BitCast;
using isa_loop::kLanes;
using isa_loop::Load;
using isa_loop::Store;

// erf(x) / x = P(x * x) on |x| < 0.5.
template <typename V>
inline V ErfOverX(V u) {
  V p = V{} + 0.00471798982f;
  p = p * u + -0.0267571844f;
  p = p * u + 0.112828225f;
  p = p * u + -0.376126081f;
  return p * u + 1.12837911f;
}

// exp(a) for a in [-52, 0]: a = n ln 2 + r with |r| <= ln 2 / 2 (ln 2 in
// two parts, so n * kLn2Hi is exact), exp(r) by its Taylor series to r^7
// (relative truncation error below 1e-8), times 2^n built in the exponent bits
// (n >= -76, a normal float).
template <typename V, typename VI>
inline V ExpNonPositive(V a) {
  const float kLog2E = 1.44269504f;
  const float kLn2Hi = 0.693145752f;    // 0x3f317200: 15 significant bits
  const float kLn2Lo = 1.42860677e-6f;  // ln 2 - kLn2Hi
  const float kRound = 12582912.0f;     // 1.5 * 2^23: rounds to integers
  const V n = (a * kLog2E + kRound) - kRound;
  const V r = (a - n * kLn2Hi) - n * kLn2Lo;
  V p = V{} + (1.0f / 5040);
  p = p * r + (1.0f / 720);
  p = p * r + (1.0f / 120);
  p = p * r + (1.0f / 24);
  p = p * r + (1.0f / 6);
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const VI scale = (__builtin_convertvector(n, VI) + 127) << 23;
  return p * BitCast<V>(scale);
}

// erfc(z) for z in [0.5, 10.1] (z = 10.1 gives 0).
template <typename V, typename VI>
inline V ErfcTail(V z) {
  const V t = 1.0f / (z * 0.5f + 1.0f);
  V q = V{} + -0.0615148209f;
  q = q * t + 0.297380596f;
  q = q * t + -0.513934433f;
  q = q * t + 0.307635307f;
  q = q * t + -0.0457163826f;
  q = q * t + 0.21007742f;
  q = q * t + 0.241426945f;
  q = q * t + 0.282579213f;
  q = q * t + 0.28207624f;
  q = q * t;
  // z * z = p + r exactly (Dekker's product, z split into 12-bit halves).
  const V p = z * z;
  const V hi = BitCast<V>(BitCast<VI>(z) & static_cast<int32_t>(0xfffff000));
  const V lo = z - hi;
  const V r = ((hi * hi - p) + 2.0f * hi * lo) + lo * lo;
  // exp(-p - r) = e * e * (1 - r) with e = exp(-p / 2); |r| < 2^-17.
  const V e = ExpNonPositive<V, VI>(p * -0.5f);
  return (e * q * (1.0f - r)) * e;
}

template <typename V, typename VI>
inline V Abs(V x) {
  return BitCast<V>(BitCast<VI>(x) & 0x7fffffff);
}

// |x| clamped into the tail's domain (NaN stays NaN).
template <typename V>
inline V TailArgument(V ax) {
  const V lo = V{} + 0.5f;
  const V hi = V{} + 10.1f;
  return ax < lo ? lo : (ax > hi ? hi : ax);
}

template <typename V, typename VI>
inline V ErfcVec(V x) {
  const V ax = Abs<V, VI>(x);
  const V small = 1.0f - x * ErfOverX(x * x);
  const V tail = ErfcTail<V, VI>(TailArgument(ax));
  const V result = ax < 0.5f ? small : (x > 0.0f ? tail : 2.0f - tail);
  return x != x ? x : result;
}

template <typename V, typename VI>
inline V ErfVec(V x) {
  const V ax = Abs<V, VI>(x);
  const V small = x * ErfOverX(x * x);
  const V large = 1.0f - ErfcTail<V, VI>(TailArgument(ax));
  const V result = ax < 0.5f ? small : (x > 0.0f ? large : -large);
  return x != x ? x : result;
}

// y[i] = F(x[i]); the last partial vector goes through a zero-padded
// buffer, so every element takes the same path.
template <typename V, V (*F)(V)>
void Apply(const float* x, int64_t n, float* y) {
  int64_t i = 0;
  for (; i + kLanes<V> <= n; i += kLanes<V>) {
    Store<V>(y + i, F(Load<V>(x + i)));
  }
  if (i < n) {
    float buf[kLanes<V>] = {};
    __builtin_memcpy(buf, x + i, (n - i) * sizeof(float));
    Store<V>(buf, F(Load<V>(buf)));
    __builtin_memcpy(y + i, buf, (n - i) * sizeof(float));
  }
}

template <typename V, typename VI>
constexpr Kernels MakeKernels(const char* isa) {
  return Kernels{&Apply<V, &ErfVec<V, VI>>, &Apply<V, &ErfcVec<V, VI>>, isa};
}

}  // namespace
}  // namespace erf_float
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_IMPL_H_
