#include "runtime/kernels/bundle_table.h"

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/crc32c.h"
#include "runtime/kernels/varint.h"

namespace stepflow {
namespace {

constexpr uint64_t kFooterSize = 48;
constexpr uint64_t kHandlesSize = 40;      // Two handles, zero-padded.
constexpr uint64_t kBlockTrailerSize = 5;  // Compression byte + CRC.
constexpr char kMagic[8] = {'\x57', '\xfb', '\x80', '\x8b',
                            '\x24', '\x75', '\x47', '\xdb'};

absl::Status Corrupt(const std::string& path, absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat("Checkpoint index file '", path, "' is corrupt: ", what));
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Decodes the footer and checks it is exactly what a writer produces for
// its handles, with both blocks (and their trailers) before the footer.
absl::Status CheckFooter(const std::string& path, absl::string_view footer,
                         uint64_t file_size, BlockHandle* metaindex) {
  if (footer.substr(kHandlesSize) != absl::string_view(kMagic, 8)) {
    return Corrupt(path, "bad table magic (truncated, or not an index file)");
  }
  absl::string_view in = footer.substr(0, kHandlesSize);
  BlockHandle handles[2];
  std::string canonical;
  for (BlockHandle& h : handles) {
    if (!GetVarint64(&in, &h.offset) || !GetVarint64(&in, &h.size)) {
      return Corrupt(path, "bad block handle in the footer");
    }
    PutVarint64(h.offset, &canonical);
    PutVarint64(h.size, &canonical);
    const uint64_t limit = file_size - kFooterSize;
    if (h.offset > limit || h.size > limit - h.offset ||
        kBlockTrailerSize > limit - h.offset - h.size) {
      return Corrupt(path, "a footer block handle points outside the file");
    }
  }
  canonical.resize(kHandlesSize, '\0');
  if (canonical != footer.substr(0, kHandlesSize)) {
    return Corrupt(path, "footer is not in canonical form");
  }
  *metaindex = handles[0];
  return absl::OkStatus();
}

// The metaindex block is not read by LevelDB's reader without a filter
// policy; its checksum is verified here.
absl::Status CheckBlockChecksum(const std::string& path,
                                const RandomAccessFile& file,
                                const BlockHandle& h) {
  std::string block;
  absl::Status s = file.Read(h.offset, h.size + kBlockTrailerSize, &block);
  if (!s.ok()) return Corrupt(path, s.message());
  uint32_t stored;
  std::memcpy(&stored, block.data() + h.size + 1, 4);
  const uint32_t actual = crc32c::Value(block.data(), h.size + 1);
  if (crc32c::Unmask(stored) != actual) {
    return Corrupt(path, "metaindex block checksum mismatch");
  }
  return absl::OkStatus();
}

// LevelDB's file interfaces over file_io.h.
class TableSource : public leveldb::RandomAccessFile {
 public:
  explicit TableSource(const stepflow::RandomAccessFile* file) : file_(file) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    const uint64_t size = file_->size();
    const uint64_t avail =
        offset >= size ? 0 : std::min<uint64_t>(n, size - offset);
    std::string bytes;
    if (avail > 0) {
      absl::Status s = file_->Read(offset, avail, &bytes);
      if (!s.ok()) return leveldb::Status::IOError(std::string(s.message()));
      std::memcpy(scratch, bytes.data(), avail);
    }
    *result = leveldb::Slice(scratch, avail);
    return leveldb::Status::OK();
  }

 private:
  const stepflow::RandomAccessFile* file_;
};

class TableSink : public leveldb::WritableFile {
 public:
  explicit TableSink(AtomicFileWriter* file) : file_(file) {}
  leveldb::Status Append(const leveldb::Slice& data) override {
    absl::Status s = file_->Append(absl::string_view(data.data(), data.size()));
    if (!s.ok()) status_ = s;
    return s.ok() ? leveldb::Status::OK()
                  : leveldb::Status::IOError(std::string(s.message()));
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  const absl::Status& status() const { return status_; }

 private:
  AtomicFileWriter* file_;
  absl::Status status_;
};

leveldb::Options TableOptions() {
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  // TensorFlow's table block size, so that big indexes split into the same
  // blocks as TensorFlow's and the files stay byte-identical.
  options.block_size = 256 * 1024;
  options.paranoid_checks = true;
  options.env = nullptr;  // Never used by Table / TableBuilder.
  return options;
}

}  // namespace

absl::Status ReadIndexTable(
    const std::string& path,
    std::vector<std::pair<std::string, std::string>>* records) {
  std::unique_ptr<RandomAccessFile> file;
  absl::Status s = RandomAccessFile::Open(path, &file);
  if (!s.ok()) return s;
  const uint64_t size = file->size();
  if (size < kFooterSize) {
    return Corrupt(path, absl::StrCat("truncated: ", size,
                                      " bytes, shorter than a table footer"));
  }
  std::string footer;
  s = file->Read(size - kFooterSize, kFooterSize, &footer);
  if (!s.ok()) return Corrupt(path, s.message());
  BlockHandle metaindex;
  s = CheckFooter(path, footer, size, &metaindex);
  if (!s.ok()) return s;
  s = CheckBlockChecksum(path, *file, metaindex);
  if (!s.ok()) return s;

  TableSource source(file.get());
  leveldb::Table* raw_table = nullptr;
  leveldb::Status ls =
      leveldb::Table::Open(TableOptions(), &source, size, &raw_table);
  if (!ls.ok()) return Corrupt(path, ls.ToString());
  std::unique_ptr<leveldb::Table> table(raw_table);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  records->clear();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string key = it->key().ToString();
    if (!records->empty() && key <= records->back().first) {
      return Corrupt(path, "keys are not in increasing order");
    }
    records->emplace_back(std::move(key), it->value().ToString());
  }
  if (!it->status().ok()) return Corrupt(path, it->status().ToString());
  return absl::OkStatus();
}

absl::Status IndexTableBuilder::Create(
    const std::string& path, uint64_t unique_id,
    std::unique_ptr<IndexTableBuilder>* builder) {
  std::unique_ptr<IndexTableBuilder> b(new IndexTableBuilder());
  absl::Status s = AtomicFileWriter::Create(path, unique_id, &b->file_);
  if (!s.ok()) return s;
  b->sink_ = std::make_unique<TableSink>(b->file_.get());
  b->table_ =
      std::make_unique<leveldb::TableBuilder>(TableOptions(), b->sink_.get());
  *builder = std::move(b);
  return absl::OkStatus();
}

IndexTableBuilder::~IndexTableBuilder() {
  if (table_ != nullptr && !finished_) table_->Abandon();
}

absl::Status IndexTableBuilder::Add(absl::string_view key,
                                    absl::string_view value) {
  if (finished_) return absl::FailedPreconditionError("index already finished");
  if (has_key_ && key <= last_key_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index keys out of order: '", key, "' after '", last_key_, "'"));
  }
  last_key_ = std::string(key);
  has_key_ = true;
  table_->Add(leveldb::Slice(key.data(), key.size()),
              leveldb::Slice(value.data(), value.size()));
  const auto* sink = static_cast<const TableSink*>(sink_.get());
  if (!sink->status().ok()) return sink->status();
  if (!table_->status().ok()) {
    return absl::InternalError(table_->status().ToString());
  }
  return absl::OkStatus();
}

absl::Status IndexTableBuilder::Finish() {
  if (finished_) return absl::FailedPreconditionError("index already finished");
  finished_ = true;
  leveldb::Status ls = table_->Finish();
  const auto* sink = static_cast<const TableSink*>(sink_.get());
  if (!sink->status().ok()) return sink->status();
  if (!ls.ok()) return absl::InternalError(ls.ToString());
  return absl::OkStatus();
}

absl::Status IndexTableBuilder::Commit() { return file_->Commit(); }

}  // namespace stepflow
