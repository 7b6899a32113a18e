// Reads a tensor bundle checkpoint (bundle_format.h, CHECKPOINT_FORMAT.md):
// "P.index" and its "P.data-NNNNN-of-NNNNN" files, as TensorFlow or
// BundleWriter wrote them.
//
// Open reads and verifies the whole index (every block checksum, the
// header, and every entry: dtype, shape, shard, and that its extent can
// hold the tensor). Reading a tensor reads its extent from the data file
// and checks the entry's checksum before anything is returned. A tensor
// saved in slices is assembled from the slices that overlap the request.
//
// Errors: no index file -> NotFound "Failed to find any matching files for
// P"; an unknown tensor -> NotFound "Key K not found in checkpoint"; any
// corruption or truncation of the index or a data file, or a missing data
// file -> DataLoss naming the file; a newer, incompatible format version or
// a big-endian bundle -> InvalidArgument / Unimplemented. Allocation is
// bounded by the files: an entry's shape is checked against its extent,
// and the extent against the data file's size, before any tensor is
// allocated (through the caller's TensorAllocator).
//
// Thread-safety: immutable after Open; Read* may be called concurrently.
#ifndef STEPFLOW_RUNTIME_KERNELS_BUNDLE_READER_H_
#define STEPFLOW_RUNTIME_KERNELS_BUNDLE_READER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/tensor_bundle.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/kernels/bundle_format.h"
#include "runtime/kernels/tensor_slice.h"

namespace stepflow {

class BundleReader {
 public:
  static absl::Status Open(absl::string_view prefix,
                           std::unique_ptr<BundleReader>* reader);

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return header_.num_shards(); }
  // Every index entry by key (slice keys included), in key order.
  const std::map<std::string, BundleEntryProto>& entries() const {
    return entries_;
  }

  // The entry of tensor `name`; NotFound if there is none.
  absl::Status Lookup(const std::string& name,
                      const BundleEntryProto** entry) const;
  // Its dtype and full shape (checked at Open).
  absl::Status LookupDtypeAndShape(const std::string& name, DataType* dtype,
                                   TensorShape* shape) const;

  // The whole tensor `name` (assembled from its slices if saved in slices).
  absl::Status Read(const std::string& name,
                    const bundle::TensorAllocator& alloc, Tensor* out) const;
  // `slice` of tensor `name`, whose full shape the caller states:
  // InvalidArgument if it differs from the stored shape, the slice does
  // not fit it, stored slices do not cover it, or it is a string slice
  // other than the whole tensor or one stored slice (as in TensorFlow).
  absl::Status ReadSlice(const std::string& name, const TensorShape& full_shape,
                         const TensorSlice& slice,
                         const bundle::TensorAllocator& alloc,
                         Tensor* out) const;

  // Reads and checks the bytes of entry `key` (a whole tensor or one
  // stored slice) without keeping them.
  absl::Status Verify(const std::string& key) const;

 private:
  explicit BundleReader(std::string prefix) : prefix_(std::move(prefix)) {}
  absl::Status Parse(
      const std::vector<std::pair<std::string, std::string>>& records);
  // Validates one entry and records its shape and slices.
  absl::Status CheckEntry(const std::string& key,
                          const BundleEntryProto& entry);
  // A whole-tensor entry's value.
  absl::Status ReadEntry(const std::string& key, const BundleEntryProto& entry,
                         const bundle::TensorAllocator& alloc,
                         Tensor* out) const;
  absl::Status IndexCorrupt(absl::string_view what) const;

  const std::string prefix_;
  std::string index_path_;
  BundleHeaderProto header_;
  std::map<std::string, BundleEntryProto> entries_;
  // Decoded shapes and slices of the entries, by key.
  std::map<std::string, TensorShape> shapes_;
  std::map<std::string, std::vector<TensorSlice>> slices_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_BUNDLE_READER_H_
