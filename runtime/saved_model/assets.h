// The asset files a MetaGraph reads at load time, and the feeds that give
// the graph their paths.
//
// A MetaGraph lists its assets in asset_file_def (TF2 exports); older
// exports list them in the "saved_model_assets" collection as an any_list
// of AssetFileDefs, which is read only when asset_file_def is empty. Each
// asset's tensor is fed "<export_dir>/assets/<filename>" (a string scalar)
// in the restore and init runs.
//
// Errors: InvalidArgument when a collection entry is not an AssetFileDef
// or does not parse. Thread-safe (plain functions over values).
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_ASSETS_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_ASSETS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/meta_graph.pb.h"
#include "runtime/common/session.h"

namespace stepflow {

absl::Status GetAssetFileDefs(const MetaGraphDef& meta_graph_def,
                              std::vector<AssetFileDef>* out);

// Appends one feed per asset to `feeds`.
void AddAssetFeeds(const std::string& export_dir,
                   const std::vector<AssetFileDef>& assets,
                   Session::FeedList* feeds);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_ASSETS_H_
