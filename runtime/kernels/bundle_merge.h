// MergeV2Checkpoints' work: merges tensor bundles (bundle_reader.h) into
// one at a destination prefix, as a sharded save does with its per-device
// parts.
//
// Every source is opened and every tensor's bytes are read and checksum-
// verified first; then the merged index is built as a temporary, each
// source's data files are renamed to the destination's
// "D.data-<k>-of-<total>" (sources keep their order; a source with N
// shards takes N consecutive numbers), the index is renamed into place,
// the source index files are deleted and, with `delete_old_dirs`, each
// source's directory is removed if it is then empty and is not the
// destination's. The destination may be one of the sources.
//
// Errors: a missing source is NotFound, or skipped with
// `allow_missing_files` (InvalidArgument if every one is missing); a
// tensor in two sources is InvalidArgument "Duplicate tensor keyed by
// NAME encountered, when merging prefix: P" (slices of one tensor from
// several sources merge, if dtype and shape agree); a corrupt source is
// its DataLoss. Until the renames nothing is changed; a failed rename puts
// back the data files already moved.
//
// Thread-safety: a free function; concurrent merges must use different
// destinations and sources.
#ifndef STEPFLOW_RUNTIME_KERNELS_BUNDLE_MERGE_H_
#define STEPFLOW_RUNTIME_KERNELS_BUNDLE_MERGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace stepflow {

absl::Status MergeBundles(const std::vector<std::string>& prefixes,
                          const std::string& destination, bool delete_old_dirs,
                          bool allow_missing_files, uint64_t unique_id);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_BUNDLE_MERGE_H_
