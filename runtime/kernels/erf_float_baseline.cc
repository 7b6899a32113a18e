// The erf / erfc loops for the x86-64 baseline (SSE2; on other machines, the
// vectors the compiler targets). Only erf_float.cc calls them, after checking
// the CPU.
#include "runtime/kernels/erf_float_impl.h"

namespace stepflow {
namespace erf_float {

typedef float Vec4f
    __attribute__((vector_size(4 * sizeof(float)), aligned(sizeof(float))));
typedef int32_t Vec4i __attribute__((vector_size(4 * sizeof(int32_t))));

extern const Kernels kBaselineKernels;
const Kernels kBaselineKernels = MakeKernels<Vec4f, Vec4i>("baseline");

}  // namespace erf_float
}  // namespace stepflow
