// Reading and writing GraphDefs in TensorFlow's binary and text formats.
//
// Text is protobuf text format: enum names (DT_FLOAT), '#' comments.
// Errors: malformed or truncated input is InvalidArgument ("Could not parse
// GraphDef ..."), with line and column for text; a missing file is NotFound
// naming the path; an unreadable file is PermissionDenied, a directory
// InvalidArgument, other I/O failures Internal, all naming the path. Never
// crashes on bad bytes.
//
// ReadGraphDefFromFile picks the format by extension: ".pbtxt"/".txt" are
// text only; ".pb" tries binary, then text; anything else tries the format
// the bytes look like first (control bytes => binary), then the other.
// A SavedModel is recognised and refused with Unimplemented, the message
// saying how to load it as a SavedModel (runtime/saved_model) or freeze it
// to a GraphDef with TensorFlow: a directory holding saved_model.pb or
// saved_model.pbtxt, or a file whose contents are a SavedModel proto
// (binary: a varint field 1, saved_model_schema_version, which no GraphDef
// has, beside length-delimited fields 2, meta_graphs; text: its first field
// is saved_model_schema_version or meta_graphs).
//
// Thread-safe (no shared state).
#ifndef STEPFLOW_RUNTIME_GRAPH_GRAPH_DEF_IO_H_
#define STEPFLOW_RUNTIME_GRAPH_GRAPH_DEF_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"

namespace stepflow {

absl::Status ParseGraphDefFromBinary(absl::string_view bytes, GraphDef* out);
absl::Status ParseGraphDefFromText(absl::string_view text, GraphDef* out);

// Text form of `graph_def` (what WriteTextGraphDef writes).
std::string GraphDefToText(const GraphDef& graph_def);

absl::Status ReadGraphDefFromFile(const std::string& path, GraphDef* out);
absl::Status WriteTextGraphDef(const std::string& path,
                               const GraphDef& graph_def);
absl::Status WriteBinaryGraphDef(const std::string& path,
                                 const GraphDef& graph_def);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_GRAPH_DEF_IO_H_
