#include "runtime/kernels/checkpoint_format.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/kernels/crc32c.h"

// Payloads and integers are written in host order, which the format defines
// as little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "checkpoint_format assumes a little-endian host");

namespace stepflow {
namespace checkpoint {
namespace {

constexpr int kMaxRank = 254;
// Smallest possible encoded entry: empty name, rank 0.
constexpr uint64_t kMinEntrySize = 4 + 4 + 4 + 8 + 8 + 4;

void PutU32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}
void PutU64(std::string* out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

// A bounds-checked cursor over encoded bytes.
class Decoder {
 public:
  explicit Decoder(absl::string_view data) : data_(data) {}
  bool U32(uint32_t* v) { return Fixed(v, 4); }
  bool U64(uint64_t* v) { return Fixed(v, 8); }
  bool Bytes(size_t n, absl::string_view* v) {
    if (n > data_.size() - pos_) return false;
    *v = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  template <typename T>
  bool Fixed(T* v, size_t n) {
    if (n > data_.size() - pos_) return false;
    std::memcpy(v, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  absl::string_view data_;
  size_t pos_ = 0;
};

std::string EncodeHeader() {
  std::string h(kHeaderMagic, sizeof(kHeaderMagic));
  PutU32(&h, kFormatVersion);
  PutU32(&h, crc32c::Value(h));
  return h;
}

std::string EncodeFooter(uint64_t table_offset, uint64_t table_length,
                         uint32_t table_crc) {
  std::string f;
  PutU64(&f, table_offset);
  PutU64(&f, table_length);
  PutU32(&f, table_crc);
  PutU32(&f, crc32c::Value(f));
  f.append(kFooterMagic, sizeof(kFooterMagic));
  return f;
}

void EncodeEntry(const std::string& name, const EntryInfo& e,
                 std::string* table) {
  PutU32(table, static_cast<uint32_t>(name.size()));
  table->append(name);
  PutU32(table, static_cast<uint32_t>(e.dtype));
  PutU32(table, static_cast<uint32_t>(e.shape.dims()));
  for (int64_t d : e.shape.dim_sizes()) PutU64(table, static_cast<uint64_t>(d));
  PutU64(table, e.offset);
  PutU64(table, e.length);
  PutU32(table, e.crc);
}

std::string Hex32(uint32_t v) { return absl::StrFormat("0x%08x", v); }

}  // namespace

std::string CheckpointPath(absl::string_view prefix) {
  return absl::StrCat(prefix, kFileSuffix);
}

bool IsSavableType(DataType dtype) {
  return DataTypeIsMemcpyable(dtype) || dtype == DT_STRING;
}

// --- CheckpointWriter -------------------------------------------------------

CheckpointWriter::CheckpointWriter(std::string prefix, uint64_t unique_id)
    : path_(CheckpointPath(prefix)), unique_id_(unique_id) {}

absl::Status CheckpointWriter::Add(const std::string& name,
                                   const Tensor& tensor) {
  if (!tensor.IsInitialized()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot save uninitialized tensor '", name, "'"));
  }
  if (!IsSavableType(tensor.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot save tensor '", name, "' of type ",
                     DataTypeString(tensor.dtype()),
                     ": checkpoints hold numeric, bool and string tensors"));
  }
  if (name.size() > UINT32_MAX) {
    return absl::InvalidArgumentError("Tensor name too long to save");
  }
  if (!tensors_.emplace(name, tensor).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("Duplicate tensor name '", name, "' in one checkpoint"));
  }
  return absl::OkStatus();
}

absl::Status CheckpointWriter::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Checkpoint '", path_, "' already finished"));
  }
  finished_ = true;
  absl::Status s = RecursivelyCreateDir(Dirname(path_));
  if (!s.ok()) return s;
  // Temporaries of saves killed before their rename (of any prefix here).
  RemoveStaleTempFiles(Dirname(path_), kFileSuffix);
  std::unique_ptr<AtomicFileWriter> file;
  s = AtomicFileWriter::Create(path_, unique_id_, &file);
  if (!s.ok()) return s;
  s = file->Append(EncodeHeader());
  if (!s.ok()) return s;

  std::string table;
  PutU64(&table, tensors_.size());
  std::string scratch;
  for (const auto& [name, tensor] : tensors_) {
    EntryInfo e;
    e.dtype = tensor.dtype();
    e.shape = tensor.shape();
    e.offset = file->size();
    if (tensor.dtype() == DT_STRING) {
      const std::string* elems = tensor.base<const std::string>();
      const int64_t n = tensor.NumElements();
      scratch.clear();
      for (int64_t i = 0; i < n; ++i) PutU64(&scratch, elems[i].size());
      for (int64_t i = 0; i < n; ++i) scratch.append(elems[i]);
      e.length = scratch.size();
      e.crc = crc32c::Value(scratch);
      s = file->Append(scratch);
    } else {
      absl::string_view bytes(static_cast<const char*>(tensor.raw_data()),
                              tensor.TotalBytes());
      e.length = bytes.size();
      e.crc = crc32c::Value(bytes);
      s = file->Append(bytes);
    }
    if (!s.ok()) return s;
    EncodeEntry(name, e, &table);
  }
  const uint64_t table_offset = file->size();
  s = file->Append(table);
  if (!s.ok()) return s;
  s = file->Append(
      EncodeFooter(table_offset, table.size(), crc32c::Value(table)));
  if (!s.ok()) return s;
  return file->Commit();
}

// --- CheckpointReader -------------------------------------------------------

absl::Status CheckpointReader::Open(absl::string_view prefix,
                                    std::unique_ptr<CheckpointReader>* reader) {
  const std::string path = CheckpointPath(prefix);
  std::unique_ptr<RandomAccessFile> file;
  absl::Status s = RandomAccessFile::Open(path, &file);
  if (absl::IsNotFound(s)) {
    return absl::NotFoundError(
        absl::StrCat("Failed to find any matching files for ", prefix,
                     " (no checkpoint file '", path, "')"));
  }
  if (!s.ok()) return s;
  std::unique_ptr<CheckpointReader> r(new CheckpointReader(std::move(file)));
  s = r->Verify();
  if (!s.ok()) return s;
  *reader = std::move(r);
  return absl::OkStatus();
}

absl::Status CheckpointReader::DataLoss(const std::string& what) const {
  return absl::DataLossError(
      absl::StrCat("Checkpoint file '", file_->path(), "' is corrupt: ", what));
}

absl::Status CheckpointReader::VerifyHeader() {
  std::string header;
  absl::Status s = file_->Read(0, kHeaderSize, &header);
  if (!s.ok()) return s;
  if (std::memcmp(header.data(), kHeaderMagic, sizeof(kHeaderMagic)) != 0) {
    return DataLoss(
        "bad magic (not a stepflow checkpoint, or its header was "
        "overwritten)");
  }
  Decoder hd(absl::string_view(header).substr(sizeof(kHeaderMagic)));
  uint32_t version = 0, header_crc = 0;
  hd.U32(&version);
  hd.U32(&header_crc);
  const uint32_t want_header_crc = crc32c::Value(header.data(), 12);
  if (header_crc != want_header_crc) {
    return DataLoss(absl::StrCat("header checksum mismatch (stored ",
                                 Hex32(header_crc), ", computed ",
                                 Hex32(want_header_crc), ")"));
  }
  if (version != kFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Checkpoint file '", file_->path(), "' has format version ", version,
        "; this runtime reads version ", kFormatVersion));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::ReadEntryTable(uint64_t size,
                                              uint64_t* table_offset,
                                              std::string* table) {
  std::string footer;
  absl::Status s = file_->Read(size - kFooterSize, kFooterSize, &footer);
  if (!s.ok()) return s;
  if (std::memcmp(footer.data() + 24, kFooterMagic, sizeof(kFooterMagic)) !=
      0) {
    return DataLoss(
        "bad footer magic: the file is truncated or was not completely "
        "written");
  }
  Decoder fd(footer);
  uint64_t table_length = 0;
  uint32_t table_crc = 0, footer_crc = 0;
  fd.U64(table_offset);
  fd.U64(&table_length);
  fd.U32(&table_crc);
  fd.U32(&footer_crc);
  const uint32_t want_footer_crc = crc32c::Value(footer.data(), 20);
  if (footer_crc != want_footer_crc) {
    return DataLoss(absl::StrCat("footer checksum mismatch (stored ",
                                 Hex32(footer_crc), ", computed ",
                                 Hex32(want_footer_crc), ")"));
  }
  const uint64_t table_end = size - kFooterSize;
  if (*table_offset < kHeaderSize || *table_offset > table_end ||
      table_length != table_end - *table_offset) {
    return DataLoss(absl::StrCat("entry table [", *table_offset, ", +",
                                 table_length, ") does not fit the ", size,
                                 "-byte file (truncated or extended)"));
  }
  s = file_->Read(*table_offset, table_length, table);
  if (!s.ok()) return s;
  const uint32_t want_table_crc = crc32c::Value(*table);
  if (table_crc != want_table_crc) {
    return DataLoss(absl::StrCat("entry table checksum mismatch (stored ",
                                 Hex32(table_crc), ", computed ",
                                 Hex32(want_table_crc), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::ParseEntries(
    absl::string_view table, uint64_t table_offset,
    std::vector<std::pair<uint64_t, uint64_t>>* extents) {
  Decoder td(table);
  uint64_t count = 0;
  if (!td.U64(&count) || count > td.remaining() / kMinEntrySize) {
    return DataLoss("entry table too short for its entry count");
  }
  extents->reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t name_length = 0, dtype = 0, rank = 0;
    absl::string_view name;
    if (!td.U32(&name_length) || !td.Bytes(name_length, &name) ||
        !td.U32(&dtype) || !td.U32(&rank)) {
      return DataLoss(
          absl::StrCat("truncated entry ", i, " in the entry table"));
    }
    if (rank > kMaxRank) {
      return DataLoss(absl::StrCat("entry '", name, "' has rank ", rank));
    }
    std::vector<int64_t> dims(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t v = 0;
      if (!td.U64(&v)) {
        return DataLoss(
            absl::StrCat("truncated entry '", name, "' in the entry table"));
      }
      dims[d] = static_cast<int64_t>(v);
    }
    EntryInfo e;
    if (!td.U64(&e.offset) || !td.U64(&e.length) || !td.U32(&e.crc)) {
      return DataLoss(
          absl::StrCat("truncated entry '", name, "' in the entry table"));
    }
    e.dtype = static_cast<DataType>(dtype);
    if (!DataType_IsValid(static_cast<int>(dtype)) || !IsSavableType(e.dtype)) {
      return DataLoss(
          absl::StrCat("entry '", name, "' has unsupported dtype ", dtype));
    }
    absl::Status shape_status = TensorShape::BuildTensorShape(dims, &e.shape);
    if (!shape_status.ok()) {
      return DataLoss(absl::StrCat(
          "entry '", name, "' has a bad shape: ", shape_status.message()));
    }
    if (e.offset < kHeaderSize || e.offset > table_offset ||
        e.length > table_offset - e.offset) {
      return DataLoss(absl::StrCat("entry '", name, "' payload [", e.offset,
                                   ", +", e.length,
                                   ") lies outside the data section [",
                                   kHeaderSize, ", ", table_offset, ")"));
    }
    const uint64_t n = static_cast<uint64_t>(e.shape.num_elements());
    bool length_ok;
    if (e.dtype == DT_STRING) {
      length_ok = n <= e.length / 8;
    } else {
      const uint64_t elem = static_cast<uint64_t>(DataTypeSize(e.dtype));
      length_ok = e.length % elem == 0 && e.length / elem == n;
    }
    if (!length_ok) {
      return DataLoss(absl::StrCat("entry '", name, "' has ", e.length,
                                   " payload bytes, inconsistent with ",
                                   DataTypeString(e.dtype),
                                   e.shape.DebugString()));
    }
    extents->emplace_back(e.offset, e.length);
    if (!entries_.emplace(std::string(name), e).second) {
      return DataLoss(absl::StrCat("duplicate entry '", name, "'"));
    }
  }
  if (td.remaining() != 0) {
    return DataLoss(
        absl::StrCat(td.remaining(), " unexpected bytes after the last entry"));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::Verify() {
  const uint64_t size = file_->size();
  if (size < kHeaderSize + kFooterSize) {
    return DataLoss(
        absl::StrCat("truncated: ", size, " bytes, shorter than the ",
                     kHeaderSize + kFooterSize, "-byte header and footer"));
  }
  absl::Status s = VerifyHeader();
  if (!s.ok()) return s;
  uint64_t table_offset = 0;
  std::string table;
  s = ReadEntryTable(size, &table_offset, &table);
  if (!s.ok()) return s;
  std::vector<std::pair<uint64_t, uint64_t>> extents;
  s = ParseEntries(table, table_offset, &extents);
  if (!s.ok()) return s;
  // Payloads cover the data section exactly: no gaps, no overlaps.
  std::sort(extents.begin(), extents.end());
  uint64_t next = kHeaderSize;
  for (const auto& [offset, length] : extents) {
    if (offset != next) {
      return DataLoss(absl::StrCat(
          "payloads do not tile the data section (gap or overlap at offset ",
          std::min(offset, next), ")"));
    }
    next = offset + length;
  }
  if (next != table_offset) {
    return DataLoss(absl::StrCat("payloads end at offset ", next,
                                 " but the entry table starts at ",
                                 table_offset));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::Lookup(const std::string& name,
                                      const EntryInfo** info) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return absl::NotFoundError(
        absl::StrCat("Key ", name, " not found in checkpoint '", path(), "'"));
  }
  *info = &it->second;
  return absl::OkStatus();
}

absl::Status CheckpointReader::Read(const std::string& name,
                                    Tensor* out) const {
  const EntryInfo* e = nullptr;
  absl::Status s = Lookup(name, &e);
  if (!s.ok()) return s;
  std::string payload;
  s = file_->Read(e->offset, e->length, &payload);
  if (!s.ok()) return s;
  auto data_loss = [this, &name](const auto&... parts) {
    return absl::DataLossError(absl::StrCat("Checkpoint file '", path(),
                                            "' is corrupt: tensor '", name,
                                            "' ", parts...));
  };
  const uint32_t crc = crc32c::Value(payload);
  if (crc != e->crc) {
    return data_loss("checksum mismatch (stored ", Hex32(e->crc), ", computed ",
                     Hex32(crc), ")");
  }
  Tensor t(e->dtype, e->shape);
  const int64_t n = t.NumElements();
  if (e->dtype == DT_STRING) {
    Decoder d(payload);
    std::vector<uint64_t> lengths(n);
    for (int64_t i = 0; i < n; ++i) d.U64(&lengths[i]);  // Length checked.
    std::string* elems = t.base<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      absl::string_view bytes;
      if (!d.Bytes(lengths[i], &bytes)) {
        return data_loss("has string element ", i, " of length ", lengths[i],
                         " running past its payload");
      }
      elems[i].assign(bytes.data(), bytes.size());
    }
    if (d.remaining() != 0) {
      return data_loss("has ", d.remaining(),
                       " bytes after its last string element");
    }
  } else {
    if (e->dtype == DT_BOOL) {
      for (char c : payload) {
        if (c != 0 && c != 1)
          return data_loss("has a bool byte other than 0/1");
      }
    }
    if (!payload.empty())
      std::memcpy(t.raw_data(), payload.data(), payload.size());
  }
  *out = std::move(t);
  return absl::OkStatus();
}

// --- MergeCheckpoints -------------------------------------------------------

absl::Status MergeCheckpoints(const std::vector<std::string>& prefixes,
                              const std::string& destination,
                              bool delete_old_dirs, bool allow_missing_files,
                              uint64_t unique_id) {
  CheckpointWriter writer(destination, unique_id);
  std::vector<std::string> merged;
  std::map<std::string, std::string> source_of;  // Tensor name -> prefix.
  for (const std::string& prefix : prefixes) {
    std::unique_ptr<CheckpointReader> reader;
    absl::Status s = CheckpointReader::Open(prefix, &reader);
    if (absl::IsNotFound(s) && allow_missing_files) continue;
    if (!s.ok()) return s;
    for (const auto& entry : reader->entries()) {
      const std::string& name = entry.first;
      if (!source_of.emplace(name, prefix).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("Duplicate tensor keyed by ", name,
                         " encountered, when merging prefix: ", prefix,
                         " (also in ", source_of[name], ")"));
      }
      Tensor t;
      s = reader->Read(name, &t);
      if (!s.ok()) return s;
      s = writer.Add(name, t);
      if (!s.ok()) return s;
    }
    merged.push_back(prefix);
  }
  if (merged.empty() && !prefixes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot merge checkpoints into ", destination,
                     ": none of the ", prefixes.size(),
                     " source checkpoints exist (first: ", prefixes[0], ")"));
  }
  absl::Status s = writer.Finish();
  if (!s.ok()) return s;
  for (const std::string& prefix : merged) {
    const std::string path = CheckpointPath(prefix);
    if (path == writer.path()) continue;
    s = DeleteFile(path);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  if (delete_old_dirs) {
    const std::string destination_dir = Dirname(destination);
    for (const std::string& prefix : prefixes) {
      const std::string dir = Dirname(prefix);
      if (dir == destination_dir) continue;
      // Shards share a directory: only the first removal succeeds.
      DeleteEmptyDir(dir).IgnoreError();
    }
  }
  return absl::OkStatus();
}

}  // namespace checkpoint
}  // namespace stepflow
