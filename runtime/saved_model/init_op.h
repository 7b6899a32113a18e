// Which operation a SavedModel runs once after restoring its variables
// (table initializers, local variable initializers...).
//
// TF2 exports name it by the signature "__saved_model_init_op", whose
// output of the same key is the op; TF1 exports by the collection
// "saved_model_main_op", else "legacy_init_op", a node_list of exactly one
// name. A MetaGraph with none of these has no init op ("" with OK).
//
// Errors: FailedPrecondition when the init signature lacks its output or a
// collection does not hold exactly one name. Thread-safe.
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_INIT_OP_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_INIT_OP_H_

#include <string>

#include "absl/status/status.h"
#include "proto/meta_graph.pb.h"

namespace stepflow {

// `export_dir` only names the SavedModel in errors.
absl::Status GetInitOp(const std::string& export_dir,
                       const MetaGraphDef& meta_graph_def,
                       std::string* init_op_name);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_INIT_OP_H_
