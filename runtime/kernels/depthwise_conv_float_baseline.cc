// The depthwise float loops for the x86-64 baseline (SSE2; on other machines,
// the vectors the compiler targets). Only depthwise_conv_float.cc calls them,
// after checking the CPU.
#include "runtime/kernels/depthwise_conv_float_impl.h"

namespace stepflow {
namespace depthwise {

typedef float Vec4f
    __attribute__((vector_size(4 * sizeof(float)), aligned(sizeof(float))));

extern const FloatKernels kBaselineKernels;
const FloatKernels kBaselineKernels = MakeKernels<Vec4f>("baseline");

}  // namespace depthwise
}  // namespace stepflow
