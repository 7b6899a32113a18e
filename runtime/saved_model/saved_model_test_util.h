// Test-only: writes a small TF1-style SavedModel with this runtime's own
// save ops, so loader, C API and run_graph tests need no TensorFlow.
//
// The graph: y = x + w (x: float placeholder, w: VariableV2 float[2] saved
// as [10, 20] by a SaveV2 under save/, restored by save/restore_all from
// the filename fed to save/Const:0); `local` (float scalar) and
// `asset_var` (string scalar) are not saved: the init op `init_all`
// assigns local = 5 and asset_var = the path fed to asset_path:0 (the
// asset "vocab.txt"). Signature "serving_default": inputs {x}, outputs
// {y, local, asset}.
//
// Errors: the status of the session or file operation that failed.
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/meta_graph.pb.h"

namespace stepflow {
namespace test {

struct TestSavedModelOptions {
  // How the MetaGraph names its init op.
  enum class InitOp {
    kNone,
    kLegacyInitOpCollection,  // "legacy_init_op"
    kMainOpCollection,        // "saved_model_main_op"
    kSignature,               // "__saved_model_init_op"
  };
  InitOp init_op = InitOp::kLegacyInitOpCollection;
  // One MetaGraph per tag set (same graph; meta_graph_version is the tags
  // joined by ",").
  std::vector<std::vector<std::string>> tag_sets = {{"serve"}};
  // Write variables/ (else the SavedModel has none).
  bool with_variables = true;
  // saved_model.pbtxt instead of saved_model.pb.
  bool text = false;
  // List the asset in the saved_model_assets collection instead of
  // asset_file_def.
  bool assets_in_collection = false;
};

// The MetaGraph (tags {"serve"}) WriteTestSavedModel writes, without
// variables.
MetaGraphDef TestMetaGraphDef(const TestSavedModelOptions& options);

// Writes the SavedModel to `export_dir` (created if missing).
absl::Status WriteTestSavedModel(const std::string& export_dir,
                                 const TestSavedModelOptions& options = {});

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_
