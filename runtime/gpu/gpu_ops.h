// Factories for the CUDA OpKernels, looked up by op name when the GPU
// KernelDefs (gpu_kernel_defs.h) are registered (gpu_kernel_registration.cc).
// Each kernel runs only on a GpuDevice (Internal error otherwise).
#ifndef STEPFLOW_RUNTIME_GPU_GPU_OPS_H_
#define STEPFLOW_RUNTIME_GPU_GPU_OPS_H_

#include <string>

#include "runtime/framework/op_kernel.h"

namespace stepflow {

// The factory for math/state op `op`, or an empty function.
KernelFactory GpuMathKernelFactory(const std::string& op);
// The factory for _Send/_Recv, or an empty function.
KernelFactory GpuTransferKernelFactory(const std::string& op);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GPU_GPU_OPS_H_
