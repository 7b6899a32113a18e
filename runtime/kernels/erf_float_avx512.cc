// The erf / erfc loops for AVX-512F, built with its flags (sf_isa_variants).
// Only erf_float.cc calls them, after checking the CPU.
#include "runtime/kernels/erf_float_impl.h"

namespace stepflow {
namespace erf_float {

typedef float Vec16f
    __attribute__((vector_size(16 * sizeof(float)), aligned(sizeof(float))));
typedef int32_t Vec16i __attribute__((vector_size(16 * sizeof(int32_t))));

extern const Kernels kAvx512Kernels;
const Kernels kAvx512Kernels = MakeKernels<Vec16f, Vec16i>("avx512f");

}  // namespace erf_float
}  // namespace stepflow
