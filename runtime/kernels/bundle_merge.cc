#include "runtime/kernels/bundle_merge.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/tensor_bundle.pb.h"
#include "runtime/kernels/bundle_format.h"
#include "runtime/kernels/bundle_reader.h"
#include "runtime/kernels/bundle_table.h"
#include "runtime/kernels/file_io.h"

namespace stepflow {
namespace {

// Adds `source`'s entries to `merged`, their shards shifted by
// `shard_offset`.
absl::Status MergeEntries(const BundleReader& source, int shard_offset,
                          std::map<std::string, BundleEntryProto>* merged) {
  for (const auto& [key, entry] : source.entries()) {
    auto [it, inserted] = merged->try_emplace(key, entry);
    BundleEntryProto& out = it->second;
    if (inserted) {
      if (entry.slices_size() == 0) {
        out.set_shard_id(entry.shard_id() + shard_offset);
      }
      continue;
    }
    // Slices of one tensor saved by several parts.
    if (entry.slices_size() > 0 && out.slices_size() > 0 &&
        entry.dtype() == out.dtype() &&
        entry.shape().SerializeAsString() == out.shape().SerializeAsString()) {
      for (const TensorSliceProto& slice : entry.slices()) {
        *out.add_slices() = slice;
      }
      continue;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Duplicate tensor keyed by ", key,
                     " encountered, when merging prefix: ", source.prefix()));
  }
  return absl::OkStatus();
}

struct Move {
  std::string from;
  std::string to;
};

void UndoMoves(const std::vector<Move>& done) {
  for (auto it = done.rbegin(); it != done.rend(); ++it) {
    RenameFile(it->to, it->from).IgnoreError();
  }
}

}  // namespace

absl::Status MergeBundles(const std::vector<std::string>& prefixes,
                          const std::string& destination, bool delete_old_dirs,
                          bool allow_missing_files, uint64_t unique_id) {
  std::vector<std::unique_ptr<BundleReader>> sources;
  for (const std::string& prefix : prefixes) {
    std::unique_ptr<BundleReader> reader;
    absl::Status s = BundleReader::Open(prefix, &reader);
    if (absl::IsNotFound(s) && allow_missing_files) continue;
    if (!s.ok()) return s;
    for (const auto& entry : reader->entries()) {
      s = reader->Verify(entry.first);
      if (!s.ok()) return s;
    }
    sources.push_back(std::move(reader));
  }
  if (sources.empty() && !prefixes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot merge checkpoints into ", destination,
                     ": none of the ", prefixes.size(),
                     " source checkpoints exist (first: ", prefixes[0], ")"));
  }
  std::map<std::string, BundleEntryProto> merged;
  int total_shards = 0;
  for (const auto& source : sources) {
    absl::Status s = MergeEntries(*source, total_shards, &merged);
    if (!s.ok()) return s;
    total_shards += source->num_shards();
  }
  if (sources.empty()) total_shards = 1;  // An empty checkpoint.

  const std::string dir = Dirname(destination);
  absl::Status s = RecursivelyCreateDir(dir);
  if (!s.ok()) return s;
  RemoveStaleTempFiles(dir, bundle::IsBundleFileName);
  std::unique_ptr<IndexTableBuilder> index;
  s = IndexTableBuilder::Create(bundle::IndexPath(destination), unique_id,
                                &index);
  if (!s.ok()) return s;
  BundleHeaderProto header;
  header.set_num_shards(total_shards);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(bundle::kVersion);
  s = index->Add(bundle::kHeaderKey, header.SerializeAsString());
  for (auto it = merged.begin(); s.ok() && it != merged.end(); ++it) {
    s = index->Add(it->first, it->second.SerializeAsString());
  }
  if (s.ok()) s = index->Finish();
  if (!s.ok()) return s;

  std::vector<Move> moves;
  int shard = 0;
  for (const auto& source : sources) {
    for (int i = 0; i < source->num_shards(); ++i, ++shard) {
      Move m{bundle::DataPath(source->prefix(), i, source->num_shards()),
             bundle::DataPath(destination, shard, total_shards)};
      // A shard with no tensors may be absent.
      if (m.from == m.to || !FileExists(m.from)) continue;
      s = RenameFile(m.from, m.to);
      if (!s.ok()) {
        UndoMoves(moves);
        return s;
      }
      moves.push_back(std::move(m));
    }
  }
  s = index->Commit();
  if (!s.ok()) {
    UndoMoves(moves);
    return s;
  }
  const std::string dest_index = bundle::IndexPath(destination);
  for (const auto& source : sources) {
    const std::string path = bundle::IndexPath(source->prefix());
    if (path == dest_index) continue;
    s = DeleteFile(path);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  if (delete_old_dirs) {
    for (const auto& source : sources) {
      const std::string source_dir = Dirname(source->prefix());
      // Parts share a directory: only the first removal succeeds.
      if (source_dir != dir) DeleteEmptyDir(source_dir).IgnoreError();
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
