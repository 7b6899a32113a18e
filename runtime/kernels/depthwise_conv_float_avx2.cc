// The depthwise float loops for AVX2 with FMA, built with its flags
// (sf_isa_variants). Only depthwise_conv_float.cc calls them, after checking
// the CPU.
#include "runtime/kernels/depthwise_conv_float_impl.h"

namespace stepflow {
namespace depthwise {

typedef float Vec8f
    __attribute__((vector_size(8 * sizeof(float)), aligned(sizeof(float))));

extern const FloatKernels kAvx2Kernels;
const FloatKernels kAvx2Kernels = MakeKernels<Vec8f>("avx2");

}  // namespace depthwise
}  // namespace stepflow
