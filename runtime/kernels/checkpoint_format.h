// The stepflow checkpoint file: one self-checking file per checkpoint
// prefix, written atomically. (Our own format, not TensorFlow's tensor
// bundle; CHECKPOINT_FORMAT.md beside this file is the full specification.)
//
// A checkpoint with prefix P is the single file "P.sfckpt":
//
//   offset 0   header (16 bytes)
//                magic        8 bytes  89 53 46 43 4B 50 54 0A ("\x89SFCKPT\n")
//                version      u32      1
//                header_crc   u32      CRC-32C of the 12 bytes above
//   16         data section: each tensor's payload, back to back, in entry
//              order (names sorted bytewise); no padding
//   T          entry table (table_length bytes)
//                count        u64
//                per entry:   name_length u32, name bytes,
//                             dtype u32 (DataType enum value),
//                             rank u32, dims i64 x rank,
//                             offset u64, length u64 (payload extent),
//                             payload_crc u32 (CRC-32C of the payload)
//   end-32     footer (32 bytes)
//                table_offset u64      T
//                table_length u64
//                table_crc    u32      CRC-32C of the table bytes
//                footer_crc   u32      CRC-32C of the 20 footer bytes above
//                magic        8 bytes  89 53 46 45 4E 44 0D 0A
//                ("\x89SFEND\r\n")
//
// All integers little-endian. Payloads: numeric/bool tensors are their
// elements' bytes in row-major order (little-endian; half/bfloat16 as their
// 16-bit patterns, complex as (real, imag)); string tensors are one u64
// length per element followed by the elements' bytes concatenated.
//
// Integrity: a reader checks, before returning anything, both magics, the
// header and footer CRCs, that header + data + table + footer cover the
// file exactly, the table CRC, and every entry's extent, dtype and shape
// against the data section; each tensor's payload CRC is checked when it is
// read. Any mismatch is DataLoss naming the file and what is wrong (bad
// magic, checksum mismatch, truncated file or entry); nothing corrupted is
// ever returned as a value. A version other than 1 with a valid header CRC
// is InvalidArgument (a file from a newer writer).
//
// Atomicity: CheckpointWriter writes "P.sfckpt.tmp-<16 hex>" and renames it
// over "P.sfckpt" after an fsync (file_io.h), so a reader sees the old
// checkpoint or the new one, never a mix; an interrupted write leaves at
// most a stale temporary file, which readers never open. Finish first
// deletes the stale temporaries ("*.sfckpt.tmp-<16 hex>" no live writer
// holds locked, file_io.h) in the checkpoint's directory, so repeatedly
// killed saves do not fill the disk.
//
// Thread-safety: a CheckpointWriter is used by one thread. A
// CheckpointReader is immutable after Open; Read may be called
// concurrently.
#ifndef STEPFLOW_RUNTIME_KERNELS_CHECKPOINT_FORMAT_H_
#define STEPFLOW_RUNTIME_KERNELS_CHECKPOINT_FORMAT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/file_io.h"

namespace stepflow {
namespace checkpoint {

inline constexpr char kFileSuffix[] = ".sfckpt";
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kFooterSize = 32;
inline constexpr char kHeaderMagic[8] = {'\x89', 'S', 'F', 'C',
                                         'K',    'P', 'T', '\n'};
inline constexpr char kFooterMagic[8] = {'\x89', 'S', 'F',  'E',
                                         'N',    'D', '\r', '\n'};

// "<prefix>.sfckpt".
std::string CheckpointPath(absl::string_view prefix);

// Whether `dtype` can be stored: every numeric type, bool and string.
bool IsSavableType(DataType dtype);

// One table entry.
struct EntryInfo {
  DataType dtype = DT_INVALID;
  TensorShape shape;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t crc = 0;
};

class CheckpointWriter {
 public:
  // `unique_id` names the temporary file (see file_io.h).
  CheckpointWriter(std::string prefix, uint64_t unique_id);

  // Queues `tensor` under `name` (the tensor is shared, not copied; the
  // caller keeps it unchanged until Finish). InvalidArgument for a
  // duplicate name, an uninitialized tensor or an unsupported dtype.
  absl::Status Add(const std::string& name, const Tensor& tensor);

  // Creates the prefix's directory if needed and writes the file
  // atomically. The first error is returned and no checkpoint file is
  // changed. Call at most once.
  absl::Status Finish();

  const std::string& path() const { return path_; }

 private:
  const std::string path_;
  const uint64_t unique_id_;
  std::map<std::string, Tensor> tensors_;
  bool finished_ = false;
};

class CheckpointReader {
 public:
  // Opens and verifies "<prefix>.sfckpt" (everything except tensor
  // payloads). NotFound "Failed to find any matching files for <prefix>"
  // when it does not exist; DataLoss when it is corrupt or truncated.
  static absl::Status Open(absl::string_view prefix,
                           std::unique_ptr<CheckpointReader>* reader);

  // Entries by name.
  const std::map<std::string, EntryInfo>& entries() const { return entries_; }
  bool Contains(const std::string& name) const {
    return entries_.count(name) > 0;
  }
  // NotFound "Key <name> not found in checkpoint <path>".
  absl::Status Lookup(const std::string& name, const EntryInfo** info) const;

  // Reads tensor `name`: NotFound as Lookup, DataLoss if its payload does
  // not match its checksum or cannot be decoded.
  absl::Status Read(const std::string& name, Tensor* out) const;

  const std::string& path() const { return file_->path(); }

 private:
  explicit CheckpointReader(std::unique_ptr<RandomAccessFile> file)
      : file_(std::move(file)) {}
  // Checks the whole file (header, footer, entry table, payload layout)
  // and fills entries_; DataLoss naming the file for any corruption.
  absl::Status Verify();
  absl::Status VerifyHeader();
  // The entry table's offset and bytes, checked against the footer.
  absl::Status ReadEntryTable(uint64_t size, uint64_t* table_offset,
                              std::string* table);
  // Decodes the table into entries_ and the payloads' (offset, length).
  absl::Status ParseEntries(
      absl::string_view table, uint64_t table_offset,
      std::vector<std::pair<uint64_t, uint64_t>>* extents);
  absl::Status DataLoss(const std::string& what) const;

  std::unique_ptr<RandomAccessFile> file_;
  std::map<std::string, EntryInfo> entries_;
};

// Merges the checkpoints at `prefixes` into one at `destination` (which may
// be one of them): every tensor is read (and so checksum-verified) and
// written to a new file, atomically. Then the source files other than the
// destination are deleted and, with `delete_old_dirs`, the directory of
// each source prefix is removed if it is empty and differs from the
// destination's (failures there are ignored).
//   - a missing source: NotFound, or skipped with `allow_missing_files`
//     (InvalidArgument if every one of them is missing);
//   - a tensor name present in two sources: InvalidArgument
//     "Duplicate tensor keyed by <name> encountered, when merging prefix:
//     <prefix>";
//   - a corrupt source: its DataLoss; nothing is written or deleted.
absl::Status MergeCheckpoints(const std::vector<std::string>& prefixes,
                              const std::string& destination,
                              bool delete_old_dirs, bool allow_missing_files,
                              uint64_t unique_id);

}  // namespace checkpoint
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CHECKPOINT_FORMAT_H_
