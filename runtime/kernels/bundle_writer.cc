#include "runtime/kernels/bundle_writer.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/bundle_format.h"
#include "runtime/kernels/bundle_table.h"
#include "runtime/kernels/crc32c.h"
#include "runtime/kernels/file_io.h"

namespace stepflow {

BundleWriter::BundleWriter(std::string prefix, uint64_t unique_id)
    : prefix_(std::move(prefix)), unique_id_(unique_id) {}

absl::Status BundleWriter::CheckTensor(const std::string& name,
                                       const Tensor& tensor) const {
  if (name.empty()) {
    return absl::InvalidArgumentError("Cannot save a tensor with no name");
  }
  if (!tensor.IsInitialized()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot save uninitialized tensor '", name, "'"));
  }
  if (!bundle::IsSavableType(tensor.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot save tensor '", name, "' of type ",
                     DataTypeString(tensor.dtype()),
                     ": checkpoints hold numeric, bool and string tensors"));
  }
  return absl::OkStatus();
}

absl::Status BundleWriter::Add(const std::string& name, const Tensor& tensor) {
  absl::Status s = CheckTensor(name, tensor);
  if (!s.ok()) return s;
  if (sliced_.count(name) > 0 || !tensors_.emplace(name, tensor).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("Duplicate tensor name '", name, "' in one checkpoint"));
  }
  order_.push_back(name);
  return absl::OkStatus();
}

absl::Status BundleWriter::AddSlice(const std::string& name,
                                    const TensorShape& full_shape,
                                    const TensorSlice& slice,
                                    const Tensor& slice_tensor) {
  absl::Status s = CheckTensor(name, slice_tensor);
  if (!s.ok()) return s;
  if (!slice.FitsIn(full_shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Slice ", slice.DebugString(), " of tensor '", name,
                     "' does not fit its shape ", full_shape.DebugString()));
  }
  const TensorShape slice_shape = slice.SliceShape(full_shape);
  if (slice_tensor.shape() != slice_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Slice in shape_and_slice specification does not match the shape of "
        "the tensor to save: ",
        slice_shape.DebugString(), " vs. ", slice_tensor.shape().DebugString(),
        " for tensor '", name, "'"));
  }
  if (tensors_.count(name) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor '", name, "' is saved both whole and in slices"));
  }
  auto [it, inserted] = sliced_.try_emplace(name);
  BundleEntryProto& entry = it->second;
  if (inserted) {
    entry.set_dtype(slice_tensor.dtype());
    full_shape.AsProto(entry.mutable_shape());
  } else {
    TensorShape shape;
    if (entry.dtype() != slice_tensor.dtype() ||
        !TensorShape::FromProto(entry.shape(), &shape).ok() ||
        shape != full_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Slices of tensor '", name, "' disagree on its dtype or shape: ",
          DataTypeString(slice_tensor.dtype()), full_shape.DebugString()));
    }
  }
  std::string key = EncodeSliceKey(name, slice);
  if (!tensors_.emplace(key, slice_tensor).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("Slice ", slice.DebugString(), " of tensor '", name,
                     "' is saved twice"));
  }
  order_.push_back(std::move(key));
  slice.AsProto(entry.add_slices());
  return absl::OkStatus();
}

absl::Status BundleWriter::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Checkpoint '", prefix_, "' already finished"));
  }
  finished_ = true;
  const std::string dir = Dirname(prefix_);
  absl::Status s = RecursivelyCreateDir(dir);
  if (!s.ok()) return s;
  // Temporaries of saves killed before their renames (of any prefix here).
  RemoveStaleTempFiles(dir, bundle::IsBundleFileName);

  std::unique_ptr<AtomicFileWriter> data;
  s = AtomicFileWriter::Create(bundle::DataPath(prefix_, 0, 1), unique_id_,
                               &data);
  if (!s.ok()) return s;
  std::map<std::string, BundleEntryProto> entries = sliced_;
  std::string bytes;
  for (const std::string& key : order_) {
    const Tensor& tensor = tensors_.at(key);
    BundleEntryProto& entry = entries[key];
    entry.set_dtype(tensor.dtype());
    tensor.shape().AsProto(entry.mutable_shape());
    entry.set_offset(static_cast<int64_t>(data->size()));
    absl::string_view view;
    uint32_t crc;
    if (tensor.dtype() == DT_STRING) {
      bytes.clear();
      crc = bundle::EncodeTensor(tensor, &bytes);
      view = bytes;
    } else {  // Written from the tensor's own buffer, without a copy.
      view = absl::string_view(static_cast<const char*>(tensor.raw_data()),
                               tensor.TotalBytes());
      crc = crc32c::Value(view);
    }
    entry.set_crc32c(crc32c::Mask(crc));
    entry.set_size(static_cast<int64_t>(view.size()));
    s = data->Append(view);
    if (!s.ok()) return s;
  }

  std::unique_ptr<IndexTableBuilder> index;
  s = IndexTableBuilder::Create(bundle::IndexPath(prefix_), unique_id_, &index);
  if (!s.ok()) return s;
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(bundle::kVersion);
  s = index->Add(bundle::kHeaderKey, header.SerializeAsString());
  for (auto it = entries.begin(); s.ok() && it != entries.end(); ++it) {
    s = index->Add(it->first, it->second.SerializeAsString());
  }
  if (s.ok()) s = index->Finish();
  if (!s.ok()) return s;
  // An earlier checkpoint's data file keeps a second name until the new
  // index is in place, so that a failed index rename can put it back.
  const std::string data_path = data->path();
  const std::string backup = TempFilePath(data_path, ~unique_id_);
  const bool has_backup =
      FileExists(data_path) && LinkFile(data_path, backup).ok();
  s = data->Commit();
  const bool data_committed = s.ok();
  if (s.ok()) s = index->Commit();
  if (!s.ok() && data_committed) {
    // Put back the earlier data file, or remove the orphaned new one.
    if (has_backup) {
      RenameFile(backup, data_path).IgnoreError();
    } else {
      DeleteFile(data_path).IgnoreError();
    }
  }
  if (has_backup) DeleteFile(backup).IgnoreError();
  return s;
}

}  // namespace stepflow
