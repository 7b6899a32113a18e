// The erf / erfc loops for AVX2 with FMA, built with its flags
// (sf_isa_variants). Only erf_float.cc calls them, after checking the CPU.
#include "runtime/kernels/erf_float_impl.h"

namespace stepflow {
namespace erf_float {

typedef float Vec8f
    __attribute__((vector_size(8 * sizeof(float)), aligned(sizeof(float))));
typedef int32_t Vec8i __attribute__((vector_size(8 * sizeof(int32_t))));

extern const Kernels kAvx2Kernels;
const Kernels kAvx2Kernels = MakeKernels<Vec8f, Vec8i>("avx2");

}  // namespace erf_float
}  // namespace stepflow
