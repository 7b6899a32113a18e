#include "runtime/kernels/tensor_slice_table.h"

#include <glob.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/kernels/bundle_table.h"

namespace stepflow {
namespace {

// The format version V1 writers record (TensorFlow's checkpoint version).
constexpr int kV1CheckpointProducer = 1;

absl::Status Corrupt(const std::string& file, const std::string& what) {
  return absl::DataLossError(
      absl::StrCat("Unable to read checkpoint file ", file, ": ", what));
}

}  // namespace

bool SavableInV1(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
    case DT_BOOL:
    case DT_STRING:
      return true;
    default:
      return false;
  }
}

TensorSliceTableWriter::TensorSliceTableWriter() {
  meta_.mutable_meta()->mutable_versions()->set_producer(kV1CheckpointProducer);
}

absl::Status TensorSliceTableWriter::Add(const std::string& name,
                                         const TensorShape& shape,
                                         const TensorSlice& slice,
                                         const Tensor& data) {
  auto it = index_.find(name);
  SavedSliceMeta* meta;
  if (it != index_.end()) {
    meta = meta_.mutable_meta()->mutable_tensor(it->second);
    TensorShape existing;
    if (!TensorShape::FromProto(meta->shape(), &existing).ok() ||
        existing != shape || meta->type() != data.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tensor ", name, " saved twice with different shapes or types"));
    }
  } else {
    index_[name] = meta_.meta().tensor_size();
    meta = meta_.mutable_meta()->add_tensor();
    meta->set_name(name);
    shape.AsProto(meta->mutable_shape());
    meta->set_type(data.dtype());
  }
  slice.AsProto(meta->add_slice());

  SavedTensorSlices record;
  SavedSlice* saved = record.mutable_data();
  saved->set_name(name);
  slice.AsProto(saved->mutable_slice());
  TensorToProto(data, saved->mutable_data(), /*use_tensor_content=*/false);
  saved->mutable_data()->clear_dtype();
  saved->mutable_data()->clear_tensor_shape();
  const std::string key = EncodeSliceKey(name, slice);
  if (!records_.emplace(key, record.SerializeAsString()).second) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Slice ", slice.DebugString(), " of tensor ", name, " saved twice"));
  }
  return absl::OkStatus();
}

absl::Status TensorSliceTableWriter::Write(const std::string& filename,
                                           uint64_t temp_id) {
  std::unique_ptr<IndexTableBuilder> table;
  absl::Status s = IndexTableBuilder::Create(filename, temp_id, &table);
  if (s.ok()) s = table->Add("", meta_.SerializeAsString());
  for (auto it = records_.begin(); s.ok() && it != records_.end(); ++it) {
    s = table->Add(it->first, it->second);
  }
  if (s.ok()) s = table->Finish();
  if (s.ok()) s = table->Commit();
  return s;
}

absl::Status TensorSliceTableReader::Open(
    const std::string& file_pattern,
    std::unique_ptr<TensorSliceTableReader>* reader) {
  auto r = std::unique_ptr<TensorSliceTableReader>(new TensorSliceTableReader);
  r->pattern_ = file_pattern;
  glob_t matches;
  if (glob(file_pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) {
      r->files_.push_back(matches.gl_pathv[i]);
    }
  }
  globfree(&matches);
  if (r->files_.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "Unsuccessful TensorSliceReader constructor: Failed to find any "
        "matching files for ",
        file_pattern));
  }
  for (size_t f = 0; f < r->files_.size(); ++f) {
    const std::string& file = r->files_[f];
    std::vector<std::pair<std::string, std::string>> records;
    absl::Status s = ReadIndexTable(file, &records);
    if (!s.ok()) {
      return absl::DataLossError(
          absl::StrCat("Unable to open table file ", file, ": ", s.message()));
    }
    std::map<std::string, std::string> by_key(records.begin(), records.end());
    SavedTensorSlices meta;
    auto it = by_key.find("");
    if (it == by_key.end() || !meta.ParseFromString(it->second)) {
      return Corrupt(file, "no tensor metadata");
    }
    for (const SavedSliceMeta& t : meta.meta().tensor()) {
      StoredTensor& stored = r->tensors_[t.name()];
      TensorShape shape;
      s = TensorShape::FromProto(t.shape(), &shape);
      if (!s.ok()) return Corrupt(file, std::string(s.message()));
      if (stored.dtype == DT_INVALID) {
        stored.dtype = t.type();
        stored.shape = shape;
      } else if (stored.dtype != t.type() || stored.shape != shape) {
        return Corrupt(file, absl::StrCat("tensor ", t.name(),
                                          " differs from another file's"));
      }
      for (const TensorSliceProto& proto : t.slice()) {
        StoredSlice slice;
        slice.file = static_cast<int>(f);
        s = TensorSlice::FromProto(proto, &slice.slice);
        if (!s.ok() || !slice.slice.FitsIn(shape)) {
          return Corrupt(file, absl::StrCat("bad slice of tensor ", t.name()));
        }
        stored.slices.push_back(std::move(slice));
      }
    }
    r->records_.push_back(std::move(by_key));
  }
  *reader = std::move(r);
  return absl::OkStatus();
}

absl::Status TensorSliceTableReader::Lookup(const std::string& name,
                                            DataType* dtype,
                                            TensorShape* shape) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "Tensor name \"", name, "\" not found in checkpoint files ", pattern_));
  }
  *dtype = it->second.dtype;
  *shape = it->second.shape;
  return absl::OkStatus();
}

absl::Status TensorSliceTableReader::ReadSlice(const std::string& name,
                                               const TensorSlice& slice,
                                               Tensor* out) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return Lookup(name, nullptr, nullptr);
  const StoredTensor& stored = it->second;
  const TensorSlice wanted = slice.Resolved(stored.shape);
  int64_t covered = 0;
  for (const StoredSlice& part : stored.slices) {
    const TensorSlice have = part.slice.Resolved(stored.shape);
    TensorSlice region;
    if (!have.Intersect(wanted, &region)) continue;
    const std::string& file = files_[part.file];
    const auto& records = records_[part.file];
    auto rec = records.find(EncodeSliceKey(name, part.slice));
    SavedTensorSlices record;
    if (rec == records.end() || !record.ParseFromString(rec->second)) {
      return Corrupt(
          file, absl::StrCat("missing slice ", part.slice.DebugString(), " of ",
                             name));
    }
    TensorProto proto = record.data().data();
    proto.set_dtype(stored.dtype);
    const TensorShape part_shape = part.slice.SliceShape(stored.shape);
    part_shape.AsProto(proto.mutable_tensor_shape());
    Tensor values;
    absl::Status s = TensorFromProto(proto, &values);
    if (!s.ok()) return Corrupt(file, std::string(s.message()));
    CopySliceRegion(values, have, region, wanted, out);
    covered += region.SliceShape(stored.shape).num_elements();
  }
  if (covered < out->NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Error copying slice data: slice ", slice.DebugString(),
                     " of tensor ", name, " is not covered by ", pattern_));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
