// Parsing serialized tf.train.Example protos into the tensors of the
// Example parsing ops (ParseExample, ParseExampleV2, ParseSingleExample).
//
// ExampleParseConfig names the features: dense ones (fixed shape, or a
// first dimension of -1 for a variable number of rows padded with the
// default), sparse ones (a SparseTensor per feature) and ragged ones
// (values and row splits). ParseExamples parses `n` serialized Examples,
// a batch (outputs gain a leading batch dimension) or a single scalar
// Example, and allocates each output through `alloc`, in the op's output
// order: sparse indices, sparse values, sparse shapes, dense values,
// ragged values, ragged row splits.
//
// Errors (InvalidArgument, naming the feature and the example index as
// TensorFlow does): bytes that are not an Example, a feature whose value
// list holds another type, a dense feature of the wrong size, a required
// dense feature that is missing, a default of the wrong shape.
// Thread-compatible; the config is immutable once built.
#ifndef STEPFLOW_RUNTIME_KERNELS_EXAMPLE_PARSER_H_
#define STEPFLOW_RUNTIME_KERNELS_EXAMPLE_PARSER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {

struct ExampleParseConfig {
  struct Dense {
    std::string key;
    DataType dtype = DT_FLOAT;
    PartialTensorShape shape;  // First dim -1: variable number of rows.
    Tensor default_value;      // Empty: the feature is required.
  };
  struct Sparse {
    std::string key;
    DataType dtype = DT_FLOAT;
  };
  struct Ragged {
    std::string key;
    DataType dtype = DT_FLOAT;
    DataType splits_dtype = DT_INT64;
  };
  std::vector<Sparse> sparse;
  std::vector<Dense> dense;
  std::vector<Ragged> ragged;
};

// Allocates output `index` with `shape` (the kernel's allocate_output).
using OutputAllocator =
    std::function<absl::Status(int index, const TensorShape& shape, Tensor**)>;

// `serialized` holds n strings; `names` n names or null; `batched` false
// for a single scalar Example (n == 1).
absl::Status ParseExamples(const ExampleParseConfig& config,
                           const std::string* serialized, int64_t n,
                           const std::string* names, bool batched,
                           const OutputAllocator& alloc);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_EXAMPLE_PARSER_H_
