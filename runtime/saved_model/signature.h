// Looking up a MetaGraph's signatures and the tensors their keys name.
//
// Errors: InvalidArgument naming the missing signature (or key) and every
// one the MetaGraph (or signature) has; Unimplemented for an input or
// output that is not a dense tensor (sparse or composite encodings).
// Thread-safe (plain functions over values).
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_SIGNATURE_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_SIGNATURE_H_

#include <string>

#include "absl/status/status.h"
#include "proto/meta_graph.pb.h"

namespace stepflow {

// `*out` points into `meta_graph_def`.
absl::Status FindSignature(const MetaGraphDef& meta_graph_def,
                           const std::string& signature_key,
                           const SignatureDef** out);

// The TensorInfo (a dense tensor's "node:index" name, dtype, shape) of
// input (output) `key` of `signature`;
// `signature_key` only names it in errors.
absl::Status SignatureInputTensor(const SignatureDef& signature,
                                  const std::string& signature_key,
                                  const std::string& key, TensorInfo* out);
absl::Status SignatureOutputTensor(const SignatureDef& signature,
                                   const std::string& signature_key,
                                   const std::string& key, TensorInfo* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_SIGNATURE_H_
