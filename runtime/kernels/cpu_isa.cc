#include "runtime/kernels/cpu_isa.h"

namespace stepflow {

bool CpuSupports(CpuIsa isa) {
#if defined(__x86_64__)
  switch (isa) {
    case CpuIsa::kBaseline:
      return true;
    case CpuIsa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CpuIsa::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }
  return false;
#else
  return isa == CpuIsa::kBaseline;
#endif
}

CpuIsa BestCpuIsa() {
  static const CpuIsa best = CpuSupports(CpuIsa::kAvx512) ? CpuIsa::kAvx512
                             : CpuSupports(CpuIsa::kAvx2) ? CpuIsa::kAvx2
                                                          : CpuIsa::kBaseline;
  return best;
}

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kBaseline:
      return "baseline";
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kAvx512:
      return "avx512f";
  }
  return "unknown";
}

}  // namespace stepflow
