// Tensors in files, for run_graph: feeds given as "name=@FILE" and the
// fetched tensors --output_dir writes.
//
// ReadTensorFile reads a NumPy .npy file (runtime/framework/npy.h: any
// dtype NumPy writes that a Tensor can hold, bool and bytes/str arrays
// included) when the name ends in ".npy" or the bytes start with NumPy's
// magic, and a binary TensorProto otherwise. Errors name the file: NotFound
// when it does not exist, PermissionDenied when it cannot be opened,
// InvalidArgument for a directory or contents that are neither.
//
// FetchFileStem maps a fetch name to a file name without extension, one to
// one over TensorFlow's tensor names ("node" or "node:index", node names
// matching [A-Za-z0-9.][A-Za-z0-9_./-]*): the output index always follows
// an '_' ("x" and "x:0" -> "x_0", "x:1" -> "x_1"), each '/' becomes '+'
// ("scope/y" -> "scope+y_0"), and any other character outside
// [A-Za-z0-9_.-] becomes %XX (its hex code), so distinct tensors never
// share a file.
//
// WriteFetchFile writes DIR/<stem>.npy, or, for a dtype .npy cannot hold
// (bfloat16, resource, ...), DIR/<stem>.pb holding a binary TensorProto.
//
// Thread-safe (no shared state; touches only the named files).
#ifndef STEPFLOW_RUNTIME_BIN_TENSOR_FILE_H_
#define STEPFLOW_RUNTIME_BIN_TENSOR_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

absl::Status ReadTensorFile(const std::string& path, Tensor* out);

std::string FetchFileStem(absl::string_view fetch);

// Sets `*path` to the file written.
absl::Status WriteFetchFile(const std::string& dir, absl::string_view fetch,
                            const Tensor& tensor, std::string* path);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_BIN_TENSOR_FILE_H_
