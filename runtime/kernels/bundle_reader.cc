#include "runtime/kernels/bundle_reader.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/bundle_table.h"
#include "runtime/kernels/file_io.h"

namespace stepflow {

absl::Status BundleReader::IndexCorrupt(absl::string_view what) const {
  return absl::DataLossError(absl::StrCat("Checkpoint index file '",
                                          index_path_, "' is corrupt: ", what));
}

absl::Status BundleReader::Open(absl::string_view prefix,
                                std::unique_ptr<BundleReader>* reader) {
  std::unique_ptr<BundleReader> r(new BundleReader(std::string(prefix)));
  r->index_path_ = bundle::IndexPath(prefix);
  std::vector<std::pair<std::string, std::string>> records;
  absl::Status s = ReadIndexTable(r->index_path_, &records);
  if (absl::IsNotFound(s)) {
    return absl::NotFoundError(
        absl::StrCat("Failed to find any matching files for ", prefix,
                     " (no checkpoint index '", r->index_path_, "')"));
  }
  if (!s.ok()) return s;
  s = r->Parse(records);
  if (!s.ok()) return s;
  *reader = std::move(r);
  return absl::OkStatus();
}

absl::Status BundleReader::Parse(
    const std::vector<std::pair<std::string, std::string>>& records) {
  if (records.empty() || records[0].first != bundle::kHeaderKey) {
    return IndexCorrupt("no bundle header (the first key must be \"\")");
  }
  if (!header_.ParseFromString(records[0].second)) {
    return IndexCorrupt("the bundle header does not parse");
  }
  if (header_.num_shards() < 1) {
    return IndexCorrupt(
        absl::StrCat("the header says ", header_.num_shards(), " shards"));
  }
  if (header_.endianness() != BundleHeaderProto::LITTLE) {
    return absl::UnimplementedError(absl::StrCat(
        "Checkpoint '", prefix_,
        "' was written on a big-endian host; reading it is not supported"));
  }
  const VersionDef& v = header_.version();
  bool bad_consumer = false;
  for (int b : v.bad_consumers()) bad_consumer |= b == bundle::kVersion;
  if (v.producer() < bundle::kMinProducer ||
      v.min_consumer() > bundle::kVersion || bad_consumer) {
    return absl::InvalidArgumentError(
        absl::StrCat("Checkpoint '", prefix_, "' has bundle format version ",
                     v.producer(), " (min consumer ", v.min_consumer(),
                     "); this runtime reads version ", bundle::kVersion));
  }
  for (size_t i = 1; i < records.size(); ++i) {
    BundleEntryProto entry;
    if (!entry.ParseFromString(records[i].second)) {
      return IndexCorrupt(
          absl::StrCat("the entry of '", records[i].first, "' does not parse"));
    }
    entries_.emplace(records[i].first, std::move(entry));
  }
  for (const auto& [key, entry] : entries_) {
    absl::Status s = CheckEntry(key, entry);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status BundleReader::CheckEntry(const std::string& key,
                                      const BundleEntryProto& entry) {
  auto bad = [&](const auto&... why) {
    return IndexCorrupt(absl::StrCat("entry '", key, "' ", why...));
  };
  const DataType dtype = entry.dtype();
  if (!DataType_IsValid(static_cast<int>(dtype)) ||
      !bundle::IsSavableType(dtype)) {
    return bad("has unsupported dtype ", static_cast<int>(dtype));
  }
  TensorShape shape;
  absl::Status s = TensorShape::FromProto(entry.shape(), &shape);
  if (!s.ok()) return bad("has a bad shape: ", s.message());
  shapes_[key] = shape;
  if (entry.slices_size() > 0) {
    std::vector<TensorSlice>& slices = slices_[key];
    for (const TensorSliceProto& proto : entry.slices()) {
      TensorSlice slice;
      s = TensorSlice::FromProto(proto, &slice);
      if (!s.ok() || !slice.FitsIn(shape)) {
        return bad("has a slice outside its shape ", shape.DebugString());
      }
      auto it = entries_.find(EncodeSliceKey(key, slice));
      if (it == entries_.end() || it->second.dtype() != dtype ||
          it->second.slices_size() != 0) {
        return bad("lacks the data of its slice ", slice.DebugString());
      }
      TensorShape stored;
      if (!TensorShape::FromProto(it->second.shape(), &stored).ok() ||
          stored != slice.SliceShape(shape)) {
        return bad("has slice ", slice.DebugString(),
                   " stored with another shape");
      }
      slices.push_back(std::move(slice));
    }
    return absl::OkStatus();
  }
  if (entry.shard_id() < 0 || entry.shard_id() >= header_.num_shards()) {
    return bad("names shard ", entry.shard_id(), " of ", header_.num_shards());
  }
  if (entry.offset() < 0 || entry.size() < 0 ||
      !bundle::SizeMatches(dtype, shape.num_elements(),
                           static_cast<uint64_t>(entry.size()))) {
    return bad("has extent [", entry.offset(), ", +", entry.size(),
               "), which cannot hold ", DataTypeString(dtype),
               shape.DebugString());
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Lookup(const std::string& name,
                                  const BundleEntryProto** entry) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || name.empty()) {
    return absl::NotFoundError(
        absl::StrCat("Key ", name, " not found in checkpoint ", prefix_));
  }
  *entry = &it->second;
  return absl::OkStatus();
}

absl::Status BundleReader::LookupDtypeAndShape(const std::string& name,
                                               DataType* dtype,
                                               TensorShape* shape) const {
  const BundleEntryProto* entry = nullptr;
  absl::Status s = Lookup(name, &entry);
  if (!s.ok()) return s;
  *dtype = entry->dtype();
  *shape = shapes_.at(name);
  return absl::OkStatus();
}

absl::Status BundleReader::ReadEntry(const std::string& key,
                                     const BundleEntryProto& entry,
                                     const bundle::TensorAllocator& alloc,
                                     Tensor* out) const {
  const std::string path =
      bundle::DataPath(prefix_, entry.shard_id(), header_.num_shards());
  auto corrupt = [&](const auto&... why) {
    return absl::DataLossError(absl::StrCat("Checkpoint data file '", path,
                                            "' is corrupt: tensor '", key, "' ",
                                            why...));
  };
  std::unique_ptr<RandomAccessFile> file;
  absl::Status s = RandomAccessFile::Open(path, &file);
  if (absl::IsNotFound(s)) return corrupt("is in a data file that is missing");
  if (!s.ok()) return s;
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  const uint64_t size = static_cast<uint64_t>(entry.size());
  if (offset > file->size() || size > file->size() - offset) {
    return corrupt("extends past the end of the ", file->size(),
                   "-byte file (truncated)");
  }
  Tensor t;
  s = alloc(entry.dtype(), shapes_.at(key), &t);
  if (!s.ok()) return s;
  if (entry.dtype() == DT_STRING) {
    std::string bytes;
    s = file->Read(offset, size, &bytes);
    if (!s.ok()) return corrupt(s.message());
    s = bundle::DecodeTensor(bytes, entry.crc32c(), &t);
  } else {  // Straight into the tensor (its size was checked at Open).
    s = file->ReadInto(offset, size, static_cast<char*>(t.raw_data()));
    if (!s.ok()) return corrupt(s.message());
    s = bundle::CheckTensorBytes(t, entry.crc32c());
  }
  if (!s.ok()) return corrupt("has ", s.message());
  *out = std::move(t);
  return absl::OkStatus();
}

absl::Status BundleReader::Read(const std::string& name,
                                const bundle::TensorAllocator& alloc,
                                Tensor* out) const {
  const BundleEntryProto* entry = nullptr;
  absl::Status s = Lookup(name, &entry);
  if (!s.ok()) return s;
  const TensorShape& shape = shapes_.at(name);
  if (entry->slices_size() == 0) return ReadEntry(name, *entry, alloc, out);
  return ReadSlice(name, shape, TensorSlice::Full(shape.dims()), alloc, out);
}

absl::Status BundleReader::ReadSlice(const std::string& name,
                                     const TensorShape& full_shape,
                                     const TensorSlice& slice,
                                     const bundle::TensorAllocator& alloc,
                                     Tensor* out) const {
  const BundleEntryProto* entry = nullptr;
  absl::Status s = Lookup(name, &entry);
  if (!s.ok()) return s;
  const TensorShape& stored = shapes_.at(name);
  if (stored != full_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor_name = ", name, "; shape in shape_and_slice spec ",
                     full_shape.DebugString(),
                     " does not match the shape stored in checkpoint: ",
                     stored.DebugString()));
  }
  if (!slice.FitsIn(stored)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor_name = ", name, "; slice ", slice.DebugString(),
                     " does not fit its shape ", stored.DebugString()));
  }
  const TensorSlice want = slice.Resolved(stored);
  const TensorSlice whole = TensorSlice::Full(stored.dims()).Resolved(stored);
  // Copying parts of strings is not supported (as in TensorFlow): a string
  // slice must be exactly what was stored.
  const absl::Status no_string_copy = absl::InvalidArgumentError(absl::StrCat(
      "Dtype ", DataTypeString(entry->dtype()), " not supported."));
  if (entry->slices_size() == 0) {
    Tensor full;
    if (!(want == whole) && entry->dtype() == DT_STRING) return no_string_copy;
    s = ReadEntry(name, *entry, alloc, &full);
    if (!s.ok() || want == whole) {
      if (s.ok()) *out = std::move(full);
      return s;
    }
    Tensor part;
    s = alloc(entry->dtype(), slice.SliceShape(stored), &part);
    if (!s.ok()) return s;
    CopySliceRegion(full, whole, want, want, &part);
    *out = std::move(part);
    return absl::OkStatus();
  }
  const std::vector<TensorSlice>& have = slices_.at(name);
  for (const TensorSlice& h : have) {
    if (h.Resolved(stored) == want) {
      const std::string key = EncodeSliceKey(name, h);
      return ReadEntry(key, entries_.at(key), alloc, out);
    }
  }
  if (entry->dtype() == DT_STRING) return no_string_copy;
  Tensor result;
  const TensorShape result_shape = slice.SliceShape(stored);
  s = alloc(entry->dtype(), result_shape, &result);
  if (!s.ok()) return s;
  int64_t covered = 0;
  for (const TensorSlice& h : have) {
    const TensorSlice h_resolved = h.Resolved(stored);
    TensorSlice overlap;
    if (!want.Intersect(h_resolved, &overlap)) continue;
    const std::string key = EncodeSliceKey(name, h);
    Tensor part;
    s = ReadEntry(key, entries_.at(key), alloc, &part);
    if (!s.ok()) return s;
    CopySliceRegion(part, h_resolved, overlap, want, &result);
    covered += overlap.SliceShape(stored).num_elements();
  }
  if (covered < result_shape.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Does not have sufficient slices for partitioned tensor ",
                     name, " to restore in slice_spec: ", slice.DebugString()));
  }
  *out = std::move(result);
  return absl::OkStatus();
}

absl::Status BundleReader::Verify(const std::string& key) const {
  const BundleEntryProto* entry = nullptr;
  absl::Status s = Lookup(key, &entry);
  if (!s.ok() || entry->slices_size() > 0) return s;
  Tensor ignored;
  return ReadEntry(key, *entry, bundle::DefaultAllocator(), &ignored);
}

}  // namespace stepflow
