// The depthwise float loops for AVX-512F, built with its flags
// (sf_isa_variants). Only depthwise_conv_float.cc calls them, after checking
// the CPU.
#include "runtime/kernels/depthwise_conv_float_impl.h"

namespace stepflow {
namespace depthwise {

typedef float Vec16f
    __attribute__((vector_size(16 * sizeof(float)), aligned(sizeof(float))));

extern const FloatKernels kAvx512Kernels;
const FloatKernels kAvx512Kernels = MakeKernels<Vec16f>("avx512f");

}  // namespace depthwise
}  // namespace stepflow
