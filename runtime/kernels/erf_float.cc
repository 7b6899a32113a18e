#include "runtime/kernels/erf_float.h"

namespace stepflow {
namespace erf_float {

// Defined by erf_float_<isa>.cc; the wide ones exist on x86-64 builds only.
extern const Kernels kBaselineKernels;
#if defined(__x86_64__)
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;
#endif

const Kernels& KernelsFor(CpuIsa isa) {
#if defined(__x86_64__)
  switch (isa) {
    case CpuIsa::kAvx2:
      return kAvx2Kernels;
    case CpuIsa::kAvx512:
      return kAvx512Kernels;
    case CpuIsa::kBaseline:
      break;
  }
#endif
  return kBaselineKernels;
}

const Kernels& BestKernels() { return KernelsFor(BestCpuIsa()); }

}  // namespace erf_float
}  // namespace stepflow
