#include "runtime/saved_model/loader.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/saved_model/assets.h"
#include "runtime/saved_model/constants.h"
#include "runtime/saved_model/init_op.h"
#include "runtime/saved_model/reader.h"

namespace stepflow {
namespace {

absl::Status InStep(const absl::Status& s, const std::string& step,
                    const std::string& export_dir) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(step, " of SavedModel ",
                                             export_dir, ": ", s.message()));
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

absl::Status RunRestore(const RunOptions& run_options,
                        const std::string& export_dir,
                        const SaverDef& saver_def,
                        const std::vector<AssetFileDef>& assets,
                        Session* session) {
  const std::string prefix =
      absl::StrCat(export_dir, "/", kSavedModelVariablesDirectory, "/",
                   kSavedModelVariablesFilename);
  // Without the index the SavedModel has no variables (TensorFlow writes
  // none for a graph without them).
  if (!FileExists(absl::StrCat(prefix, ".index"))) return absl::OkStatus();
  Session::FeedList feeds;
  feeds.emplace_back(saver_def.filename_tensor_name(),
                     Tensor::Scalar<std::string>(prefix));
  AddAssetFeeds(export_dir, assets, &feeds);
  std::vector<Tensor> outputs;
  return session->Run(run_options, feeds, {}, {saver_def.restore_op_name()},
                      &outputs, nullptr);
}

absl::Status RunInitOp(const RunOptions& run_options,
                       const std::string& export_dir,
                       const MetaGraphDef& meta_graph_def,
                       const std::vector<AssetFileDef>& assets,
                       Session* session) {
  std::string init_op;
  absl::Status s = GetInitOp(export_dir, meta_graph_def, &init_op);
  if (!s.ok() || init_op.empty()) return s;
  Session::FeedList feeds;
  AddAssetFeeds(export_dir, assets, &feeds);
  std::vector<Tensor> outputs;
  return session->Run(run_options, feeds, {}, {init_op}, &outputs, nullptr);
}

absl::Status Load(const SessionOptions& session_options,
                  const RunOptions& run_options, const std::string& export_dir,
                  const std::unordered_set<std::string>& tags,
                  SavedModelBundle* bundle) {
  if (session_options.env == nullptr) {
    return absl::InvalidArgumentError(
        "LoadSavedModel: SessionOptions.env must be set");
  }
  absl::Status s =
      ReadMetaGraphDefFromSavedModel(export_dir, tags, &bundle->meta_graph_def);
  if (!s.ok()) return s;
  std::vector<AssetFileDef> assets;
  s = InStep(GetAssetFileDefs(bundle->meta_graph_def, &assets),
             "reading the assets", export_dir);
  if (!s.ok()) return s;
  s = InStep(NewSession(session_options, &bundle->session),
             "creating the session", export_dir);
  if (!s.ok()) return s;
  s = InStep(bundle->session->Create(bundle->meta_graph_def.graph_def()),
             "creating the graph", export_dir);
  if (!s.ok()) return s;
  if (bundle->meta_graph_def.has_saver_def()) {
    s = InStep(
        RunRestore(run_options, export_dir, bundle->meta_graph_def.saver_def(),
                   assets, bundle->session.get()),
        "restoring the variables", export_dir);
    if (!s.ok()) return s;
  }
  return InStep(RunInitOp(run_options, export_dir, bundle->meta_graph_def,
                          assets, bundle->session.get()),
                "running the init op", export_dir);
}

}  // namespace

absl::Status LoadSavedModel(const SessionOptions& session_options,
                            const RunOptions& run_options,
                            const std::string& export_dir,
                            const std::unordered_set<std::string>& tags,
                            SavedModelBundle* bundle) {
  bundle->session.reset();
  bundle->meta_graph_def.Clear();
  absl::Status s = Load(session_options, run_options, export_dir, tags, bundle);
  if (!s.ok()) {
    if (bundle->session != nullptr) bundle->session->Close().IgnoreError();
    bundle->session.reset();
    bundle->meta_graph_def.Clear();
  }
  return s;
}

}  // namespace stepflow
