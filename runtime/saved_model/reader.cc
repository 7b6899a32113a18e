#include "runtime/saved_model/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "runtime/saved_model/constants.h"

namespace stepflow {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return absl::InternalError(absl::StrCat("Could not open '", path, "'"));
  }
  out->assign(std::istreambuf_iterator<char>(f),
              std::istreambuf_iterator<char>());
  if (f.bad()) {
    return absl::InternalError(absl::StrCat("Error reading '", path, "'"));
  }
  return absl::OkStatus();
}

// Keeps the first parse error (1-based line and column).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) {
      error_ = absl::StrCat("line ", line + 1, " column ", column + 1, ": ",
                            message);
    }
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// Expanded Any fields name TensorFlow's message types
// ("[type.googleapis.com/tensorflow.AssetFileDef] { ... }"): they resolve
// to this runtime's wire-compatible messages of the same name.
class TensorFlowAnyTypeFinder : public google::protobuf::TextFormat::Finder {
 public:
  const google::protobuf::Descriptor* FindAnyType(
      const google::protobuf::Message& message, const std::string& prefix,
      const std::string& name) const override {
    (void)message;
    (void)prefix;
    std::string local = name;
    if (absl::StartsWith(local, "tensorflow.")) {
      local =
          absl::StrCat("stepflow.", local.substr(sizeof("tensorflow.") - 1));
    }
    return google::protobuf::DescriptorPool::generated_pool()
        ->FindMessageTypeByName(local);
  }
};

absl::Status ParseBinary(const std::string& path, const std::string& bytes,
                         SavedModel* out) {
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(absl::StrCat(
        "Could not parse SavedModel '", path, "' as a binary proto (",
        bytes.size(), " bytes): malformed, truncated or over 2GiB"));
  }
  return absl::OkStatus();
}

absl::Status ParseText(const std::string& path, const std::string& text,
                       SavedModel* out) {
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors;
  TensorFlowAnyTypeFinder finder;
  parser.RecordErrorsTo(&errors);
  parser.SetFinder(&finder);
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return absl::DataLossError(
        absl::StrCat("SavedModel '", path, "' is over 2GiB"));
  }
  google::protobuf::io::ArrayInputStream input(text.data(),
                                               static_cast<int>(text.size()));
  if (!parser.Parse(&input, out)) {
    return absl::DataLossError(absl::StrCat(
        "Could not parse SavedModel '", path, "' as a text proto: ",
        errors.error().empty() ? "malformed" : errors.error()));
  }
  return absl::OkStatus();
}

std::string TagSetString(const std::set<std::string>& tags) {
  return absl::StrCat("{ ", absl::StrJoin(tags, " "), tags.empty() ? "" : " ",
                      "}");
}

}  // namespace

bool MaybeSavedModelDirectory(const std::string& export_dir) {
  return IsRegularFile(absl::StrCat(export_dir, "/", kSavedModelFilenamePb)) ||
         IsRegularFile(absl::StrCat(export_dir, "/", kSavedModelFilenamePbTxt));
}

absl::Status ReadSavedModel(const std::string& export_dir, SavedModel* out) {
  out->Clear();
  const std::string pb = absl::StrCat(export_dir, "/", kSavedModelFilenamePb);
  const std::string pbtxt =
      absl::StrCat(export_dir, "/", kSavedModelFilenamePbTxt);
  std::string bytes;
  absl::Status s;
  if (IsRegularFile(pb)) {
    s = ReadFile(pb, &bytes);
    if (s.ok()) s = ParseBinary(pb, bytes, out);
  } else if (IsRegularFile(pbtxt)) {
    s = ReadFile(pbtxt, &bytes);
    if (s.ok()) s = ParseText(pbtxt, bytes, out);
  } else {
    return absl::NotFoundError(absl::StrCat(
        "Could not find SavedModel .pb or .pbtxt at supplied export directory "
        "path: ",
        export_dir,
        ". Check that the directory exists and that you have the right "
        "permissions for accessing it."));
  }
  if (!s.ok()) out->Clear();
  return s;
}

absl::Status FindMetaGraphDef(const std::unordered_set<std::string>& tags,
                              SavedModel* saved_model, MetaGraphDef* out) {
  const std::set<std::string> wanted(tags.begin(), tags.end());
  std::vector<std::string> available;
  for (MetaGraphDef& meta_graph : *saved_model->mutable_meta_graphs()) {
    const auto& have = meta_graph.meta_info_def().tags();
    const std::set<std::string> tag_set(have.begin(), have.end());
    if (tag_set == wanted) {
      *out = std::move(meta_graph);
      return absl::OkStatus();
    }
    available.push_back(TagSetString(tag_set));
  }
  return absl::NotFoundError(absl::StrCat(
      "Could not find meta graph def matching supplied tags: ",
      TagSetString(wanted), ". The SavedModel has ",
      available.empty()
          ? "no meta graphs"
          : absl::StrCat("the tag-sets ", absl::StrJoin(available, ", "))));
}

absl::Status ReadMetaGraphDefFromSavedModel(
    const std::string& export_dir, const std::unordered_set<std::string>& tags,
    MetaGraphDef* out) {
  SavedModel saved_model;
  absl::Status s = ReadSavedModel(export_dir, &saved_model);
  if (!s.ok()) return s;
  s = FindMetaGraphDef(tags, &saved_model, out);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (SavedModel at ",
                                               export_dir, ")"));
  }
  return s;
}

}  // namespace stepflow
