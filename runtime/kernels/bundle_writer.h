// Writes a tensor bundle checkpoint (bundle_format.h, CHECKPOINT_FORMAT.md)
// that TensorFlow reads: "P.data-00000-of-00001" with every tensor's bytes
// and "P.index", a table of the header and one entry per key.
//
// Atomicity: both files are written as temporaries (file_io.h
// AtomicFileWriter: "<file>.tmp-<16 hex>", exclusively locked), fsynced,
// and only when both are complete renamed into place, the data file first
// and the index last. An error at any point leaves any earlier checkpoint
// at P as it was (its data file keeps a second, temporary name until the
// new index is in place, and is put back if that rename fails) and
// deletes the temporaries; a crash
// can leave stale temporaries, which Finish deletes (those no live writer
// holds) from P's directory before writing. Between the two renames a
// crash leaves an earlier checkpoint's index beside the new data file: its
// checksums then make a restore fail with DataLoss, never return wrong
// values.
//
// Thread-safety: used by one thread. Tensors are shared, not copied: the
// caller keeps them unchanged until Finish returns.
#ifndef STEPFLOW_RUNTIME_KERNELS_BUNDLE_WRITER_H_
#define STEPFLOW_RUNTIME_KERNELS_BUNDLE_WRITER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/tensor_bundle.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/kernels/tensor_slice.h"

namespace stepflow {

class BundleWriter {
 public:
  // `unique_id` names the temporary files (file_io.h).
  BundleWriter(std::string prefix, uint64_t unique_id);

  // Queues the whole tensor `name`. InvalidArgument for an empty or
  // duplicate name, an uninitialized tensor or an unsavable dtype.
  absl::Status Add(const std::string& name, const Tensor& tensor);
  // Queues `slice_tensor` as `slice` of tensor `name` whose full shape is
  // `full_shape` (a partitioned variable's part). InvalidArgument when the
  // slice does not fit the shape, the tensor's shape is not the slice's, or
  // it conflicts with what was added under `name` before (a whole tensor,
  // another dtype or full shape, the same slice).
  absl::Status AddSlice(const std::string& name, const TensorShape& full_shape,
                        const TensorSlice& slice, const Tensor& slice_tensor);

  // Writes the files (see above). Call at most once.
  absl::Status Finish();

 private:
  absl::Status CheckTensor(const std::string& name, const Tensor& tensor) const;

  const std::string prefix_;
  const uint64_t unique_id_;
  // Keys whose bytes go to the data file (names and slice keys), and the
  // order they were added in, which is their order in the data file (as
  // TensorFlow writes them).
  std::map<std::string, Tensor> tensors_;
  std::vector<std::string> order_;
  // Entries of tensors saved in slices (dtype, shape, slices; no bytes).
  std::map<std::string, BundleEntryProto> sliced_;
  bool finished_ = false;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_BUNDLE_WRITER_H_
