// PoolingOpKernel: the base of the pooling kernels (pooling_params.h for
// the geometry). It reads a node's pooling attrs once, at construction,
// and the window sizes of the V2 ops (inputs) at each run; subclasses
// implement ShardedOpKernel::Prepare.
//
// Errors: construction fails as ReadPoolOptions does; RunOptions as
// ReadPoolSizeInputs does.
#ifndef STEPFLOW_RUNTIME_KERNELS_POOLING_OP_KERNEL_H_
#define STEPFLOW_RUNTIME_KERNELS_POOLING_OP_KERNEL_H_

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/pooling_params.h"
#include "runtime/kernels/sharded_op_kernel.h"

namespace stepflow {

class PoolingOpKernel : public ShardedOpKernel {
 protected:
  // sizes_as_inputs: ksize and strides are the inputs at ksize_index and
  // ksize_index + 1 (MaxPoolV2 and its gradients) instead of attrs.
  PoolingOpKernel(OpKernelConstruction* ctx, int spatial_dims,
                  bool sizes_as_inputs = false, int ksize_index = 0);

  // This run's options: the attrs, with the V2 ops' window sizes read from
  // their inputs.
  absl::Status RunOptions(OpKernelContext* ctx, PoolOptions* options) const;

  PoolOptions options_;
  bool include_batch_in_index_ = false;  // the argmax ops' attr

 private:
  const bool sizes_as_inputs_;
  const int ksize_index_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_POOLING_OP_KERNEL_H_
