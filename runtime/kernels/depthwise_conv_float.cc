#include "runtime/kernels/depthwise_conv_float.h"

namespace stepflow {
namespace depthwise {

// Defined by depthwise_conv_float_<isa>.cc.
extern const FloatKernels kBaselineKernels;
extern const FloatKernels kAvx2Kernels;
extern const FloatKernels kAvx512Kernels;

const FloatKernels& KernelsFor(CpuIsa isa) {
  return PickIsaCopy(isa, kBaselineKernels, kAvx2Kernels, kAvx512Kernels);
}

const FloatKernels& BestKernels() { return KernelsFor(BestCpuIsa()); }

}  // namespace depthwise
}  // namespace stepflow
