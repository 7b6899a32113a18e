#include "runtime/saved_model/init_op.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/saved_model/constants.h"

namespace stepflow {

absl::Status GetInitOp(const std::string& export_dir,
                       const MetaGraphDef& meta_graph_def,
                       std::string* init_op_name) {
  init_op_name->clear();
  const auto& signatures = meta_graph_def.signature_def();
  const auto sig = signatures.find(kSavedModelInitOpSignatureKey);
  if (sig != signatures.end()) {
    const auto out = sig->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (out == sig->second.outputs().end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Could not find output ", kSavedModelInitOpSignatureKey,
                       " of the signature ", kSavedModelInitOpSignatureKey,
                       " in SavedModel ", export_dir));
    }
    *init_op_name = out->second.name();
    return absl::OkStatus();
  }
  const auto& collections = meta_graph_def.collection_def();
  auto it = collections.find(kSavedModelMainOpKey);
  if (it == collections.end())
    it = collections.find(kSavedModelLegacyInitOpKey);
  if (it == collections.end()) return absl::OkStatus();
  if (it->second.node_list().value_size() != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("Expected exactly one main op in collection '", it->first,
                     "' of SavedModel ", export_dir, ", found ",
                     it->second.node_list().value_size()));
  }
  *init_op_name = it->second.node_list().value(0);
  return absl::OkStatus();
}

}  // namespace stepflow
