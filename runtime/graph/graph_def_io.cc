#include "runtime/graph/graph_def_io.h"

#include <sys/stat.h>

#include <climits>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace stepflow {
namespace {

// Keeps the first error (1-based line/column) instead of logging.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      error_ = absl::StrCat("line ", line + 1, " column ", column + 1, ": ",
                            message);
    }
  }
  bool has_error() const { return has_error_; }
  const std::string& error() const { return error_; }

 private:
  bool has_error_ = false;
  std::string error_;
};

bool LooksBinary(absl::string_view bytes) {
  for (char c : bytes) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0x7f) {
      return true;
    }
  }
  return false;
}

// SavedModel (saved_model.proto) is { int64 saved_model_schema_version = 1;
// repeated MetaGraphDef meta_graphs = 2; }. A GraphDef's field 1 (node) is
// length-delimited, so a varint field 1 never comes from a GraphDef: the
// bytes are a SavedModel when they are a well-formed message of nothing but
// a varint field 1 (present) and length-delimited fields 2.
bool LooksLikeBinarySavedModel(absl::string_view bytes) {
  constexpr uint32_t kVersionTag = (1 << 3) | 0;     // field 1, varint
  constexpr uint32_t kMetaGraphsTag = (2 << 3) | 2;  // field 2, bytes
  if (bytes.empty() || bytes.size() > static_cast<size_t>(INT_MAX) ||
      static_cast<unsigned char>(bytes[0]) != kVersionTag) {
    return false;
  }
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  input.SetTotalBytesLimit(INT_MAX);
  bool has_version = false;
  while (true) {
    const uint32_t tag = input.ReadTag();
    if (tag == 0) {  // the end, or a malformed tag
      return has_version &&
             input.CurrentPosition() == static_cast<int>(bytes.size());
    }
    if (tag == kVersionTag) {
      uint64_t version;
      if (!input.ReadVarint64(&version)) return false;
      has_version = true;
    } else if (tag == kMetaGraphsTag) {
      uint32_t length;
      if (!input.ReadVarint32(&length) ||
          !input.Skip(static_cast<int>(length))) {
        return false;
      }
    } else {
      return false;
    }
  }
}

// Text format: the first field named is a SavedModel's, which a GraphDef
// does not have.
bool LooksLikeTextSavedModel(absl::string_view text) {
  while (!text.empty()) {
    const char c = text.front();
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      text.remove_prefix(1);
    } else if (c == '#') {
      const size_t eol = text.find('\n');
      text.remove_prefix(eol == absl::string_view::npos ? text.size() : eol);
    } else {
      break;
    }
  }
  for (absl::string_view field :
       {"saved_model_schema_version", "meta_graphs"}) {
    if (absl::StartsWith(text, field)) {
      const absl::string_view rest = text.substr(field.size());
      if (rest.empty() || rest.front() == ':' || rest.front() == '{' ||
          absl::ascii_isspace(static_cast<unsigned char>(rest.front()))) {
        return true;
      }
    }
  }
  return false;
}

absl::Status NotAGraphDefButASavedModel(const std::string& what) {
  return absl::UnimplementedError(absl::StrCat(
      what,
      " is a SavedModel, not a GraphDef: load it as one (run_graph "
      "--saved_model=DIR, LoadSavedModel in runtime/saved_model/loader.h, or "
      "TF_LoadSessionFromSavedModel), or freeze it to a GraphDef with "
      "TensorFlow and run that, "
      "e.g. in Python: from tensorflow.python.framework.convert_to_constants "
      "import convert_variables_to_constants_v2; f = "
      "convert_variables_to_constants_v2(tf.saved_model.load(DIR)"
      ".signatures['serving_default']); tf.io.write_graph("
      "f.graph.as_graph_def(), '.', 'frozen.pb', as_text=False) (a TF1 "
      "SavedModel: load it with tf.compat.v1.saved_model.loader.load(sess, "
      "tags, DIR) and write tf.compat.v1.graph_util."
      "convert_variables_to_constants(sess, sess.graph_def, output_names), or "
      "the MetaGraphDef's graph_def)"));
}

absl::Status WithPath(const absl::Status& s, const std::string& path) {
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), " (file '", path, "')"));
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    return absl::InternalError(
        absl::StrCat("Could not open '", path, "' for writing"));
  }
  f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  f.close();
  if (!f) {
    return absl::InternalError(absl::StrCat("Could not write '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseGraphDefFromBinary(absl::string_view bytes, GraphDef* out) {
  out->Clear();
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not parse GraphDef from binary: ", bytes.size(),
                     " bytes exceeds the 2GiB protobuf limit"));
  }
  if (!out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    out->Clear();
    return absl::InvalidArgumentError(
        absl::StrCat("Could not parse GraphDef from binary (", bytes.size(),
                     " bytes): malformed or truncated protocol buffer"));
  }
  return absl::OkStatus();
}

absl::Status ParseGraphDefFromText(absl::string_view text, GraphDef* out) {
  out->Clear();
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        "Could not parse GraphDef from text: input exceeds 2GiB");
  }
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream input(text.data(),
                                               static_cast<int>(text.size()));
  if (!parser.Parse(&input, out)) {
    out->Clear();
    return absl::InvalidArgumentError(absl::StrCat(
        "Could not parse GraphDef from text: ",
        errors.has_error() ? errors.error() : "malformed text proto"));
  }
  return absl::OkStatus();
}

std::string GraphDefToText(const GraphDef& graph_def) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph_def, &text);
  return text;
}

absl::Status ReadGraphDefFromFile(const std::string& path, GraphDef* out) {
  out->Clear();
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("GraphDef file '", path, "' not found"));
  }
  if (S_ISDIR(st.st_mode)) {
    for (const char* name : {"saved_model.pb", "saved_model.pbtxt"}) {
      struct stat inner;
      if (stat(absl::StrCat(path, "/", name).c_str(), &inner) == 0) {
        return NotAGraphDefButASavedModel(
            absl::StrCat("Directory '", path, "' (it holds ", name, ")"));
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("GraphDef path '", path, "' is a directory"));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return absl::PermissionDeniedError(
        absl::StrCat("Could not open GraphDef file '", path, "'"));
  }
  std::string bytes((std::istreambuf_iterator<char>(f)),
                    std::istreambuf_iterator<char>());
  if (f.bad()) {
    return absl::InternalError(
        absl::StrCat("Error reading GraphDef file '", path, "'"));
  }
  if (LooksLikeBinarySavedModel(bytes) || LooksLikeTextSavedModel(bytes)) {
    return NotAGraphDefButASavedModel(absl::StrCat("File '", path, "'"));
  }
  const std::string lower = absl::AsciiStrToLower(path);
  if (absl::EndsWith(lower, ".pbtxt") || absl::EndsWith(lower, ".txt")) {
    return WithPath(ParseGraphDefFromText(bytes, out), path);
  }
  const bool binary_first = absl::EndsWith(lower, ".pb") || LooksBinary(bytes);
  absl::Status first = binary_first ? ParseGraphDefFromBinary(bytes, out)
                                    : ParseGraphDefFromText(bytes, out);
  if (first.ok()) return first;
  absl::Status second = binary_first ? ParseGraphDefFromText(bytes, out)
                                     : ParseGraphDefFromBinary(bytes, out);
  if (second.ok()) return second;
  return WithPath(first, path);
}

absl::Status WriteTextGraphDef(const std::string& path,
                               const GraphDef& graph_def) {
  return WriteFile(path, GraphDefToText(graph_def));
}

absl::Status WriteBinaryGraphDef(const std::string& path,
                                 const GraphDef& graph_def) {
  std::string bytes;
  if (!graph_def.SerializeToString(&bytes)) {
    return absl::InternalError(
        absl::StrCat("Could not serialize GraphDef for '", path, "'"));
  }
  return WriteFile(path, bytes);
}

}  // namespace stepflow
