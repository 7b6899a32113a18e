// Erf and Erfc over float arrays, vectorised and compiled once per x86
// vector extension (cpu_isa.h), the widest the CPU runs chosen at run time;
// TensorFlow's CPU kernels evaluate a vectorised rational approximation
// too, where libm's scalar erfcf costs a call per element.
//
// Accuracy: a few float ulps over the whole range, checked against
// TensorFlow's own values (testing/tf_goldens/erf, erf_float_test):
//   erf(x)  = x * P(x^2) for |x| < 0.5, else sign(x) * (1 - erfc(|x|));
//   erfc(x) = 1 - x * P(x^2) for |x| < 0.5; for x >= 0.5,
//             exp(-x^2) * t * R(t) with t = 1 / (1 + x / 2), exp(-x^2)
//             evaluated as exp(-x^2 / 2)^2 with the rounding error of x^2
//             put back (so the tail keeps its relative accuracy down into
//             the subnormals and is 0 from x = 10.1 on); 2 - erfc(-x) for
//             x <= -0.5.
// P and R are minimax fits (tools/math/fit_erf_float.py). NaN gives NaN,
// erf(+-inf) = +-1, erfc(+inf) = 0, erfc(-inf) = 2; the sign of a zero
// is kept by erf. The AVX2 and AVX-512 copies fuse multiply-adds, so
// their last bit may differ from the baseline's.
//
// Thread-safety: pure functions.
#ifndef STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_H_
#define STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_H_

#include <cstdint>

#include "runtime/kernels/cpu_isa.h"

namespace stepflow {
namespace erf_float {

struct Kernels {
  // y[i] = f(x[i]) for i < n; y may be x.
  void (*erf)(const float* x, int64_t n, float* y);
  void (*erfc)(const float* x, int64_t n, float* y);
  const char* isa;  // CpuIsaName of the ISA they were built for
};

// The loops compiled for `isa`; the caller checks CpuSupports(isa) first.
const Kernels& KernelsFor(CpuIsa isa);

// The loops for BestCpuIsa().
const Kernels& BestKernels();

}  // namespace erf_float
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_ERF_FLOAT_H_
