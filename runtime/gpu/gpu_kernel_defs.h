// The GPU kernel vocabulary: which ops have a "GPU" kernel, for which
// types, and which of their arguments stay in host memory. Both the CUDA
// device (//runtime/gpu:gpu_kernels) and the simulator's GPU device
// (//sim:sim_gpu_device) register exactly these KernelDefs, so placement
// and partitioning behave the same with and without real hardware.
//
// Memory types: on a GPU device, tensors of the "device types" (float,
// double) live in device memory; every other type (int32 shapes and
// indices, bool, string, resource handles) stays in host memory, as in
// TensorFlow, where int32 GPU kernels keep their arguments on the host.
// GPU _Send/_Recv use this to decide whether a value must be copied between
// host and device when it crosses to or from a CPU partition.
//
// Pure data; thread-safe. No CUDA dependency.
#ifndef STEPFLOW_RUNTIME_GPU_GPU_KERNEL_DEFS_H_
#define STEPFLOW_RUNTIME_GPU_GPU_KERNEL_DEFS_H_

#include <vector>

#include "proto/types.pb.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {

// True for the dtypes a GPU device keeps in device memory (float, double).
bool GpuTypeInDeviceMemory(DataType dtype);

// The dtypes GPU math kernels are registered for.
const std::vector<DataType>& GpuMathTypes();

// Every GPU KernelDef, in a fixed order (device_type "GPU"). Ops:
// MatMul, BiasAdd, Relu, ReluGrad, Add, AddV2, Sub, Mul, RealDiv, Neg,
// Square, Sum, Mean, Softmax, SoftmaxCrossEntropyWithLogits,
// ApplyGradientDescent, Identity, Const, Cast, Variable, VariableV2,
// Assign, _Send, _Recv. (_HostSend/_HostRecv are not needed: a GPU
// _Send/_Recv picks host or device memory from the dtype, see above.)
const std::vector<KernelDef>& GpuKernelDefs();

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GPU_GPU_KERNEL_DEFS_H_
