// The tensor bundle (TensorFlow's checkpoint format V2): file names and how
// one tensor's bytes are laid out in a data file. CHECKPOINT_FORMAT.md
// beside this file is the full description; bundle_reader.h,
// bundle_writer.h and bundle_merge.h read, write and merge whole bundles.
//
// A checkpoint with prefix P is "P.index" (a table, bundle_table.h) and
// "P.data-00000-of-0000N" ... (the tensors' bytes back to back). A tensor's
// bytes are
//   - numeric and bool tensors: the elements in row-major order,
//     little-endian (half/bfloat16 as their 16-bit patterns, complex as
//     (real, imag), bool one byte 0 or 1);
//   - string tensors: each element's length as a varint64, then a 4-byte
//     little-endian masked CRC-32C of the lengths (each taken as a
//     little-endian uint32, or uint64 when it does not fit), then the
//     elements' bytes concatenated.
// The entry's crc32c is the masked CRC-32C of those bytes, except that for
// strings the lengths enter it as the uint32/uint64 values just described,
// not as varints.
//
// Pure functions; thread-safe. Decoding errors are DataLoss (the caller
// names the file).
#ifndef STEPFLOW_RUNTIME_KERNELS_BUNDLE_FORMAT_H_
#define STEPFLOW_RUNTIME_KERNELS_BUNDLE_FORMAT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/tensor_bundle.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace bundle {

// The bundle format version this runtime writes, and the oldest it reads.
inline constexpr int kVersion = 1;
inline constexpr int kMinProducer = 0;

// The index key of the BundleHeaderProto.
inline constexpr char kHeaderKey[] = "";

// "<prefix>.index".
std::string IndexPath(absl::string_view prefix);
// "<prefix>.data-<shard, 5 digits>-of-<num_shards, 5 digits>".
std::string DataPath(absl::string_view prefix, int shard, int num_shards);
// Whether `file_name` (no directory) is a checkpoint file name: ends in
// ".index" or ".data-NNNNN-of-NNNNN".
bool IsBundleFileName(absl::string_view file_name);

// Whether tensors of `dtype` can be saved: numeric types, bool, string.
bool IsSavableType(DataType dtype);

// Allocates a tensor for reading (e.g. OpKernelContext::allocate_temp).
using TensorAllocator =
    std::function<absl::Status(DataType, const TensorShape&, Tensor*)>;
// Tensor::Allocate from cpu_allocator().
TensorAllocator DefaultAllocator();

// Appends `tensor`'s bytes to `out` and returns their entry checksum
// (unmasked). `tensor` must have a savable dtype.
uint32_t EncodeTensor(const Tensor& tensor, std::string* out);

// Decodes `bytes` (an entry's whole extent) into `out` (already allocated
// with the entry's dtype and shape) and checks the entry's masked checksum
// `masked_crc`. DataLoss describing the problem.
absl::Status DecodeTensor(absl::string_view bytes, uint32_t masked_crc,
                          Tensor* out);
// For a numeric or bool tensor whose bytes were read straight into its
// buffer: checks them against `masked_crc` (and bools are 0 or 1).
absl::Status CheckTensorBytes(const Tensor& tensor, uint32_t masked_crc);

// Whether an extent of `size` bytes can hold a tensor of `dtype` with
// `num_elements` elements (exactly, for fixed-size dtypes; at least the
// minimum encoding, for strings). Bounds every allocation by the file.
bool SizeMatches(DataType dtype, int64_t num_elements, uint64_t size);

}  // namespace bundle
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_BUNDLE_FORMAT_H_
