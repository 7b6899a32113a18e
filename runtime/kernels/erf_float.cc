#include "runtime/kernels/erf_float.h"

namespace stepflow {
namespace erf_float {

// Defined by erf_float_<isa>.cc.
extern const Kernels kBaselineKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

const Kernels& KernelsFor(CpuIsa isa) {
  return PickIsaCopy(isa, kBaselineKernels, kAvx2Kernels, kAvx512Kernels);
}

const Kernels& BestKernels() { return KernelsFor(BestCpuIsa()); }

}  // namespace erf_float
}  // namespace stepflow
