// LoadSavedModel: a session running one MetaGraph of a SavedModel
// directory, with its variables restored and its init op run (TensorFlow's
// tensorflow::LoadSavedModel).
//
//   SavedModelBundle bundle;
//   SessionOptions options;  options.env = env;
//   absl::Status s = LoadSavedModel(options, RunOptions(), dir, {"serve"},
//                                   &bundle);
//   const SignatureDef* sig;  FindSignature(bundle.meta_graph_def,
//                                           "serving_default", &sig);
//   bundle.session->Run({{sig->inputs().at("x").name(), x}},
//                       {sig->outputs().at("y").name()}, {}, &out);
//
// Steps, in order:
//  1. read saved_model.pb (else saved_model.pbtxt) and take the MetaGraph
//     whose tag set equals `tags` (reader.h);
//  2. create a session from `session_options` with the MetaGraph's graph;
//  3. when the MetaGraph has a saver_def and <export_dir>/variables/
//     variables.index exists, feed "<export_dir>/variables/variables" to
//     saver_def.filename_tensor_name (and each asset's path, assets.h) and
//     run saver_def.restore_op_name; a SavedModel without the index file
//     has no variables and nothing is restored;
//  4. run the init op (init_op.h), if any, with the asset feeds.
// The restore and init runs use `run_options`.
//
// Errors: those of reader.h (NotFound/DataLoss naming the file, NotFound
// naming the available tag-sets); InvalidArgument if session_options.env
// is null; session creation, restore and init failures keep their code,
// the message saying which step failed and naming the SavedModel. On error
// `*bundle` is left empty (any session it got is closed).
//
// Thread-safety: LoadSavedModel may run concurrently with itself; the
// bundle's session is as thread-safe as any session.
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_LOADER_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_LOADER_H_

#include <memory>
#include <string>
#include <unordered_set>

#include "absl/status/status.h"
#include "proto/config.pb.h"
#include "proto/meta_graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"

namespace stepflow {

// A loaded SavedModel: the session (owned) and the MetaGraph it runs.
struct SavedModelBundle {
  std::unique_ptr<Session> session;
  MetaGraphDef meta_graph_def;

  const google::protobuf::Map<std::string, SignatureDef>& GetSignatures()
      const {
    return meta_graph_def.signature_def();
  }
};

absl::Status LoadSavedModel(const SessionOptions& session_options,
                            const RunOptions& run_options,
                            const std::string& export_dir,
                            const std::unordered_set<std::string>& tags,
                            SavedModelBundle* bundle);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_LOADER_H_
