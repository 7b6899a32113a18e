// The names a SavedModel directory and its MetaGraphs use, fixed by the
// format (TensorFlow writes and reads the same names).
//
//   <export_dir>/saved_model.pb       (or saved_model.pbtxt)
//   <export_dir>/variables/variables.index, .data-?????-of-?????
//   <export_dir>/assets/<file>        files the graph reads
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_CONSTANTS_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_CONSTANTS_H_

namespace stepflow {

// Files and directories of an export directory.
inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelVariablesDirectory[] = "variables";
inline constexpr char kSavedModelVariablesFilename[] = "variables";
inline constexpr char kSavedModelAssetsDirectory[] = "assets";

// Common MetaGraph tags.
inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kSavedModelTagTrain[] = "train";
inline constexpr char kSavedModelTagGpu[] = "gpu";

// Collections of TF1 exports: the asset files (an any_list of
// AssetFileDefs) and the init op (a node_list of one node name), the main
// op taking precedence over the legacy init op.
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";

// TF2 exports name their init op by a signature whose one output (under
// the same key) is the op to run.
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";

// The signature run_graph and serving use when none is named.
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_CONSTANTS_H_
