// TensorFlow's V1 checkpoint format (the Save, SaveSlices, Restore and
// RestoreSlice ops): one file, a sorted key/value table in LevelDB's table
// format (bundle_table.h). Key "" holds a SavedTensorSlices whose `meta`
// lists every tensor (name, full shape, dtype, the slices stored) and the
// format version (producer 1); each stored slice is under EncodeSliceKey
// (tensor_slice.h) of its tensor and slice, a SavedTensorSlices whose
// `data` holds the slice's values in the typed *_val field of a TensorProto
// without dtype or shape (proto/saved_tensor_slice.proto).
//
// TensorSliceTableWriter collects slices and writes the file atomically.
// TensorSliceTableReader reads every file matching a glob pattern (a
// sharded save) and assembles any slice of a stored tensor from the stored
// slices that overlap it.
//
// Errors: writer: InvalidArgument for a tensor added twice with different
// shapes or dtypes, or the same slice twice; file errors as file_io.h.
// Reader: NotFound when no file matches; DataLoss naming the file for a
// table that does not parse, a missing or malformed record, or values that
// do not fill their slice; NotFound for an unknown tensor; InvalidArgument
// ("Error copying slice data") for a slice the files do not cover.
// SavableInV1 says which dtypes the format holds.
//
// Thread-safety: a writer is used by one thread; a reader is immutable
// after Open.
#ifndef STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_TABLE_H_
#define STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/saved_tensor_slice.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/kernels/tensor_slice.h"

namespace stepflow {

// Whether V1 checkpoints hold `dtype`: the real numbers but uint32 and
// uint64 (and bfloat16), complex, bool, string.
bool SavableInV1(DataType dtype);

class TensorSliceTableWriter {
 public:
  TensorSliceTableWriter();
  // `data` is `slice` of tensor `name`, whose full shape is `shape`; the
  // caller has checked that data's shape is the slice's.
  absl::Status Add(const std::string& name, const TensorShape& shape,
                   const TensorSlice& slice, const Tensor& data);
  // Writes the table to `filename` (temporary file, then rename).
  absl::Status Write(const std::string& filename, uint64_t temp_id);

 private:
  SavedTensorSlices meta_;
  std::map<std::string, int> index_;
  std::map<std::string, std::string> records_;
};

class TensorSliceTableReader {
 public:
  static absl::Status Open(const std::string& file_pattern,
                           std::unique_ptr<TensorSliceTableReader>* reader);

  // NotFound if no file holds `name`.
  absl::Status Lookup(const std::string& name, DataType* dtype,
                      TensorShape* shape) const;
  // Fills `out` (allocated with dtype and slice.SliceShape(full shape))
  // with `slice` of tensor `name`.
  absl::Status ReadSlice(const std::string& name, const TensorSlice& slice,
                         Tensor* out) const;

 private:
  struct StoredSlice {
    int file = 0;
    TensorSlice slice;
  };
  struct StoredTensor {
    DataType dtype = DT_INVALID;
    TensorShape shape;
    std::vector<StoredSlice> slices;
  };
  std::string pattern_;
  std::vector<std::string> files_;
  std::vector<std::map<std::string, std::string>> records_;
  std::map<std::string, StoredTensor> tensors_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TENSOR_SLICE_TABLE_H_
