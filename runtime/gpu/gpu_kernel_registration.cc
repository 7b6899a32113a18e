// Registers a CUDA kernel for every GPU KernelDef (gpu_kernel_defs.h). A
// def without an implementation is a programming error caught at startup.
#include <cstdio>
#include <cstdlib>

#include "runtime/gpu/gpu_kernel_defs.h"
#include "runtime/gpu/gpu_ops.h"

namespace stepflow {
namespace {

bool RegisterCudaKernels() {
  for (const KernelDef& def : GpuKernelDefs()) {
    KernelFactory f = GpuMathKernelFactory(def.op);
    if (!f) f = GpuTransferKernelFactory(def.op);
    if (!f) {
      std::fprintf(stderr, "No CUDA kernel implements GPU KernelDef %s\n",
                   def.op.c_str());
      std::abort();
    }
    KernelRegistry::Global()->Register(def, std::move(f));
  }
  return true;
}

const bool kRegistered = RegisterCudaKernels();

}  // namespace
}  // namespace stepflow
