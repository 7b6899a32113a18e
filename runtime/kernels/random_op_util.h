// Helpers shared by the random kernels: the output shape from a `shape`
// input, and a kernel's Philox stream keyed from its seed attrs.
//
// Errors are InvalidArgument naming the node (a bad shape input) or the
// status of GuardedPhiloxRandom::Init.
#ifndef STEPFLOW_RUNTIME_KERNELS_RANDOM_OP_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_RANDOM_OP_UTIL_H_

#include "absl/status/status.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/philox_random.h"

namespace stepflow {

// The shape held by `t`, a 1-D int32 or int64 vector of sizes >= 0.
absl::Status ShapeFromInput(const OpKernel& op, const Tensor& t,
                            TensorShape* shape);

// `head`'s dimensions followed by `tail`'s (a per-parameter sample shape);
// InvalidArgument if the result is too large.
absl::Status ConcatShapes(const TensorShape& head, const TensorShape& tail,
                          TensorShape* out);

// Whether `shape` ends with the dimensions of `suffix`.
bool EndsWith(const TensorShape& shape, const TensorShape& suffix);

// Keys `generator` from the node's "seed" and "seed2" attrs, or from the
// device Env's random source when both are 0.
absl::Status InitGeneratorFromAttrs(OpKernelConstruction* ctx,
                                    GuardedPhiloxRandom* generator);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_RANDOM_OP_UTIL_H_
