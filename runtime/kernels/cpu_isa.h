// Which x86 vector extensions this CPU runs, for kernels that carry one
// copy of a hot loop per extension (built with that extension's compiler
// flags in a library of its own, tools/build_defs/stepflow.bzl's
// sf_isa_variants) and pick the widest at run time, so that a binary built
// for the x86-64 baseline still runs everywhere. On other architectures
// every copy is built for the baseline and only kBaseline is supported.
//
// Thread-safety: all functions may be called from any thread.
#ifndef STEPFLOW_RUNTIME_KERNELS_CPU_ISA_H_
#define STEPFLOW_RUNTIME_KERNELS_CPU_ISA_H_

namespace stepflow {

enum class CpuIsa {
  kBaseline,  // x86-64 baseline (SSE2): every machine
  kAvx2,      // AVX2 with FMA
  kAvx512,    // AVX-512F with FMA
};

// Whether this CPU runs `isa` (the baseline always).
bool CpuSupports(CpuIsa isa);

// The widest CpuIsa this CPU runs (computed once).
CpuIsa BestCpuIsa();

// "baseline", "avx2" or "avx512f".
const char* CpuIsaName(CpuIsa isa);

// The copy of a per-ISA table (a kernel's loops, built once per ISA) for
// `isa`.
template <typename T>
const T& PickIsaCopy(CpuIsa isa, const T& baseline, const T& avx2,
                     const T& avx512) {
  switch (isa) {
    case CpuIsa::kAvx2:
      return avx2;
    case CpuIsa::kAvx512:
      return avx512;
    case CpuIsa::kBaseline:
      break;
  }
  return baseline;
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CPU_ISA_H_
