// Reading a SavedModel's saved_model.pb (or .pbtxt) and picking the
// MetaGraph a set of tags names.
//
// ReadSavedModel prefers the binary saved_model.pb and falls back to the
// text saved_model.pbtxt; fields this runtime does not model (a TF2
// export's object graph, type specs) are kept as unknown fields in binary
// and skipped in text. Errors: NotFound naming the directory when it holds
// neither file; DataLoss naming the file when the file does not parse;
// other I/O failures Internal naming the file.
//
// A MetaGraph matches when its tag set (meta_info_def.tags, duplicates
// ignored) equals the requested set exactly; the first match wins.
// FindMetaGraphDef's NotFound names the requested tags and every tag set
// the SavedModel holds.
//
// Thread-safe (no shared state).
#ifndef STEPFLOW_RUNTIME_SAVED_MODEL_READER_H_
#define STEPFLOW_RUNTIME_SAVED_MODEL_READER_H_

#include <string>
#include <unordered_set>

#include "absl/status/status.h"
#include "proto/meta_graph.pb.h"
#include "proto/saved_model.pb.h"

namespace stepflow {

// Whether `export_dir` holds a saved_model.pb or saved_model.pbtxt file.
bool MaybeSavedModelDirectory(const std::string& export_dir);

absl::Status ReadSavedModel(const std::string& export_dir, SavedModel* out);

// Moves the MetaGraph of `saved_model` whose tag set is `tags` to `*out`.
absl::Status FindMetaGraphDef(const std::unordered_set<std::string>& tags,
                              SavedModel* saved_model, MetaGraphDef* out);

// ReadSavedModel, then FindMetaGraphDef.
absl::Status ReadMetaGraphDefFromSavedModel(
    const std::string& export_dir, const std::unordered_set<std::string>& tags,
    MetaGraphDef* out);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_SAVED_MODEL_READER_H_
