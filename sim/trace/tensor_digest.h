// TensorDigest: a process-independent 64-bit digest of a tensor's dtype,
// shape and contents, for trace payloads.
//
// Memcpy-able dtypes hash their raw bytes; DT_STRING hashes each string's
// bytes (never the std::string objects, which hold pointers); other dtypes
// (resources, variants) hash dtype and shape only. An uninitialized tensor
// hashes its dtype and an "uninitialized" marker.
#ifndef STEPFLOW_SIM_TENSOR_DIGEST_H_
#define STEPFLOW_SIM_TENSOR_DIGEST_H_

#include <cstdint>

#include "runtime/framework/tensor.h"
#include "sim/trace/digest.h"

namespace stepflow {

void HashTensorInto(const Tensor& t, Fnv64* h);
uint64_t TensorDigest(const Tensor& t);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_TENSOR_DIGEST_H_
