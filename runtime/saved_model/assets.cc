#include "runtime/saved_model/assets.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/saved_model/constants.h"

namespace stepflow {

absl::Status GetAssetFileDefs(const MetaGraphDef& meta_graph_def,
                              std::vector<AssetFileDef>* out) {
  out->clear();
  if (meta_graph_def.asset_file_def_size() > 0) {
    out->assign(meta_graph_def.asset_file_def().begin(),
                meta_graph_def.asset_file_def().end());
    return absl::OkStatus();
  }
  const auto it = meta_graph_def.collection_def().find(kSavedModelAssetsKey);
  if (it == meta_graph_def.collection_def().end()) return absl::OkStatus();
  for (const auto& any : it->second.any_list().value()) {
    // The type URL names TensorFlow's package ("tensorflow.AssetFileDef");
    // the bytes are wire-compatible with this runtime's message.
    AssetFileDef asset;
    if (!absl::EndsWith(any.type_url(), "/tensorflow.AssetFileDef") &&
        !absl::EndsWith(any.type_url(), "/stepflow.AssetFileDef")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collection '", kSavedModelAssetsKey, "' holds a value of type '",
          any.type_url(), "', expected an AssetFileDef"));
    }
    if (!asset.ParseFromString(any.value())) {
      return absl::InvalidArgumentError(
          absl::StrCat("collection '", kSavedModelAssetsKey,
                       "' holds an AssetFileDef that does not parse"));
    }
    out->push_back(std::move(asset));
  }
  return absl::OkStatus();
}

void AddAssetFeeds(const std::string& export_dir,
                   const std::vector<AssetFileDef>& assets,
                   Session::FeedList* feeds) {
  for (const AssetFileDef& asset : assets) {
    feeds->emplace_back(asset.tensor_info().name(),
                        Tensor::Scalar<std::string>(absl::StrCat(
                            export_dir, "/", kSavedModelAssetsDirectory, "/",
                            asset.filename())));
  }
}

}  // namespace stepflow
