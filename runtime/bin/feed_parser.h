// Parsing of command-line feeds ("name=value") into Tensors typed by the
// graph's placeholders.
//
// Value syntax: a scalar ("42", "1.5", "true", "hello"), a flat list
// ("1,2,3" or "[1,2,3]") or nested brackets ("[[1,2],[3,4]]", giving shape
// [2,2]). Ragged brackets, unparseable elements and values that do not fit
// the dtype are InvalidArgument naming the feed. When the placeholder
// declares a fully defined shape with the same element count, a flat list
// is reshaped to it; otherwise the value keeps its own shape (as in
// TensorFlow's C++ session, declared placeholder shapes are not enforced).
//
// A value "@FILE" is read from FILE (runtime/bin/tensor_file.h): a NumPy
// .npy file (any dtype NumPy writes that a Tensor holds, bool and str/bytes
// arrays included) or a binary TensorProto; the tensor keeps the file's
// shape. A relative FILE is resolved against `base_dir` when that is not
// empty. The file's dtype must be the node's (InvalidArgument naming the
// feed, the file and both dtypes); a file that is missing or unreadable is
// an error naming it. "@@text" is the literal value "@text".
#ifndef STEPFLOW_RUNTIME_BIN_FEED_PARSER_H_
#define STEPFLOW_RUNTIME_BIN_FEED_PARSER_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// Parses `value` as a tensor of `dtype`.
absl::Status ParseTensorValue(const std::string& value, DataType dtype,
                              Tensor* out);

// Parses "name=value" or "name=@FILE", typing it by the node `name` (or
// "name:0") in `graph`: Placeholder/PlaceholderWithDefault use their dtype
// attr; any other node its output dtype attr "T"/"dtype" (a file feed of a
// node with neither keeps the file's dtype). NotFound if the node is absent.
absl::Status ParseFeed(const std::string& spec, const GraphDef& graph,
                       std::pair<std::string, Tensor>* feed,
                       const std::string& base_dir = "");

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_BIN_FEED_PARSER_H_
