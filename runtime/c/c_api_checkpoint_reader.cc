// TF_CheckpointReader (c_api_experimental.h): the variables of a tensor
// bundle checkpoint (runtime/kernels/bundle_reader.h), as TensorFlow's
// reader lists them: the tensors' names in sorted order (slices of a
// partitioned variable count once, under the variable's name).
//
// Errors: a missing checkpoint is NotFound ("Unsuccessful TensorSliceReader
// constructor: Failed to find any matching files for P"); a corrupt one is
// the bundle reader's DataLoss; an unknown variable is NotFound (tensor) or
// TF_DataType 0 / -1 dims (the queries without a status, as TensorFlow).
//
// Thread-safety: a reader may be queried from several threads; it is
// immutable after TF_NewCheckpointReader.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/kernels/bundle_reader.h"
#include "tensorflow/c/c_api_experimental.h"

using stepflow::c_api::Set;

struct TF_CheckpointReader {
  std::unique_ptr<stepflow::BundleReader> reader;
  // The tensors' names, sorted (the index's order).
  std::vector<std::string> variables;
};

namespace {

// The dtype and shape of `name`, or false if the checkpoint lacks it.
bool Describe(TF_CheckpointReader* r, const char* name,
              stepflow::DataType* dtype, stepflow::TensorShape* shape) {
  if (r == nullptr || name == nullptr) return false;
  return r->reader->LookupDtypeAndShape(name, dtype, shape).ok();
}

}  // namespace

extern "C" {

TF_CheckpointReader* TF_NewCheckpointReader(const char* filename,
                                            TF_Status* status) {
  if (filename == nullptr) {
    Set(status,
        absl::InvalidArgumentError("TF_NewCheckpointReader: NULL name"));
    return nullptr;
  }
  std::unique_ptr<stepflow::BundleReader> reader;
  absl::Status s = stepflow::BundleReader::Open(filename, &reader);
  if (!s.ok()) {
    Set(status, absl::Status(s.code(), absl::StrCat("Unsuccessful "
                                                    "TensorSliceReader "
                                                    "constructor: ",
                                                    s.message())));
    return nullptr;
  }
  auto* r = new TF_CheckpointReader;
  for (const auto& [key, entry] : reader->entries()) {
    // The header's key is empty; a stored slice's key starts with a 0 byte.
    if (key.empty() || key[0] == '\0') continue;
    r->variables.push_back(key);
  }
  r->reader = std::move(reader);
  Set(status, absl::OkStatus());
  return r;
}

void TF_DeleteCheckpointReader(TF_CheckpointReader* reader) { delete reader; }

int TF_CheckpointReaderHasTensor(TF_CheckpointReader* reader,
                                 const char* name) {
  stepflow::DataType dtype;
  stepflow::TensorShape shape;
  return Describe(reader, name, &dtype, &shape) ? 1 : 0;
}

const char* TF_CheckpointReaderGetVariable(TF_CheckpointReader* reader,
                                           int index) {
  if (reader == nullptr || index < 0 ||
      index >= static_cast<int>(reader->variables.size())) {
    return nullptr;
  }
  return reader->variables[index].c_str();
}

int TF_CheckpointReaderSize(TF_CheckpointReader* reader) {
  return reader == nullptr ? 0 : static_cast<int>(reader->variables.size());
}

TF_DataType TF_CheckpointReaderGetVariableDataType(TF_CheckpointReader* reader,
                                                   const char* name) {
  stepflow::DataType dtype;
  stepflow::TensorShape shape;
  if (!Describe(reader, name, &dtype, &shape))
    return static_cast<TF_DataType>(0);
  return static_cast<TF_DataType>(dtype);
}

void TF_CheckpointReaderGetVariableShape(TF_CheckpointReader* reader,
                                         const char* name, int64_t* dims,
                                         int num_dims, TF_Status* status) {
  stepflow::DataType dtype;
  stepflow::TensorShape shape;
  if (!Describe(reader, name, &dtype, &shape)) {
    Set(status,
        absl::NotFoundError(absl::StrCat("Key ", name == nullptr ? "" : name,
                                         " not found in checkpoint")));
    return;
  }
  if (num_dims != shape.dims() || (num_dims > 0 && dims == nullptr)) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("Expected rank is ", shape.dims(),
                                 " but actual rank is ", num_dims)));
    return;
  }
  for (int i = 0; i < num_dims; ++i) dims[i] = shape.dim_size(i);
  Set(status, absl::OkStatus());
}

int TF_CheckpointReaderGetVariableNumDims(TF_CheckpointReader* reader,
                                          const char* name) {
  stepflow::DataType dtype;
  stepflow::TensorShape shape;
  if (!Describe(reader, name, &dtype, &shape)) return -1;
  return shape.dims();
}

TF_Tensor* TF_CheckpointReaderGetTensor(TF_CheckpointReader* reader,
                                        const char* name, TF_Status* status) {
  if (reader == nullptr || name == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_CheckpointReaderGetTensor: NULL argument"));
    return nullptr;
  }
  stepflow::Tensor value;
  absl::Status s =
      reader->reader->Read(name, stepflow::bundle::DefaultAllocator(), &value);
  TF_Tensor* out = nullptr;
  if (s.ok()) s = stepflow::c_api::TensorToC(value, &out);
  Set(status, s);
  return s.ok() ? out : nullptr;
}

}  // extern "C"
