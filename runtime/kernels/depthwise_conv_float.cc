#include "runtime/kernels/depthwise_conv_float.h"

namespace stepflow {
namespace depthwise {

// Defined by depthwise_conv_float_<isa>.cc; the wide ones exist on x86-64
// builds only.
extern const FloatKernels kBaselineKernels;
#if defined(__x86_64__)
extern const FloatKernels kAvx2Kernels;
extern const FloatKernels kAvx512Kernels;
#endif

const FloatKernels& KernelsFor(CpuIsa isa) {
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

const FloatKernels& BestKernels() { return KernelsFor(BestCpuIsa()); }

}  // namespace depthwise
}  // namespace stepflow
