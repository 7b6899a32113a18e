// A checkpoint's ".index" file as a sorted key/value table in LevelDB's
// table format (blocks of prefix-compressed records with restart points,
// each block followed by a compression byte and a masked CRC-32C; a
// metaindex and an index block; a 48-byte footer of two block handles,
// zero padding and the magic 0xdb4775248b80fb57). Reading and building the
// blocks is LevelDB's own table code (leveldb/table.h, table_builder.h);
// the bytes go through file_io.h, so writes are atomic.
//
// Integrity: ReadIndexTable verifies what LevelDB's reader leaves
// unchecked before handing the file to it — the footer is canonical (its
// handles varint-encoded exactly as a writer encodes them, the padding
// zero, both blocks inside the file) and the metaindex block's checksum —
// and reads every block with checksum verification. So any flipped byte or
// truncation is DataLoss naming the file, never a crash.
//
// Thread-safety: IndexTableBuilder is used by one thread; ReadIndexTable
// is a pure function of the file.
#ifndef STEPFLOW_RUNTIME_KERNELS_BUNDLE_TABLE_H_
#define STEPFLOW_RUNTIME_KERNELS_BUNDLE_TABLE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/kernels/file_io.h"

namespace leveldb {
class TableBuilder;
class WritableFile;
}  // namespace leveldb

namespace stepflow {

// Every (key, value) of the table at `path`, in key order. NotFound if the
// file does not exist; DataLoss naming it if it is not a well-formed,
// uncorrupted table.
absl::Status ReadIndexTable(
    const std::string& path,
    std::vector<std::pair<std::string, std::string>>* records);

// Builds a table into an AtomicFileWriter's temporary file: uncompressed
// blocks, bytewise key order.
class IndexTableBuilder {
 public:
  // Creates the temporary file for `path` (file_io.h AtomicFileWriter).
  static absl::Status Create(const std::string& path, uint64_t unique_id,
                             std::unique_ptr<IndexTableBuilder>* builder);
  ~IndexTableBuilder();

  // Keys must be added in strictly increasing bytewise order
  // (InvalidArgument otherwise).
  absl::Status Add(absl::string_view key, absl::string_view value);
  // Writes the remaining blocks and the footer; the file stays a
  // temporary until Commit.
  absl::Status Finish();
  // Renames the finished file into place (AtomicFileWriter::Commit).
  absl::Status Commit();

 private:
  IndexTableBuilder() = default;
  std::unique_ptr<AtomicFileWriter> file_;
  std::unique_ptr<leveldb::WritableFile> sink_;
  std::unique_ptr<leveldb::TableBuilder> table_;
  std::string last_key_;
  bool has_key_ = false;
  bool finished_ = false;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_BUNDLE_TABLE_H_
