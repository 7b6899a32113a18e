#include "testing/tf_oracle/oracle_case.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "runtime/framework/npy.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace oracle {
namespace {

namespace fs = std::filesystem;

absl::Status ParseJson(const std::string& path,
                       google::protobuf::Message* msg) {
  std::string text;
  absl::Status s = ReadFileToString(path, &text);
  if (!s.ok()) return s;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = false;
  auto st = google::protobuf::util::JsonStringToMessage(text, msg, opts);
  if (!st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a valid ", msg->GetTypeName(), ": ", st.ToString()));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadFileToString(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return absl::OkStatus();
}

absl::Status ReadTensorFile(const std::string& path, Tensor* out) {
  std::string bytes;
  absl::Status s = ReadFileToString(path, &bytes);
  if (!s.ok()) return s;
  if (absl::EndsWith(path, ".npy")) {
    s = DecodeNpy(bytes, out);
  } else {
    TensorProto proto;
    if (!proto.ParseFromString(bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": not a binary TensorProto"));
    }
    s = TensorFromProto(proto, out);
  }
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return absl::OkStatus();
}

std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);
  for (char& c : name) c = c == ' ' ? '_' : static_cast<char>(std::toupper(c));
  return name;
}

absl::StatusCode CodeFromName(const std::string& name) {
  for (int c = 0; c <= 16; ++c) {
    if (CodeName(static_cast<absl::StatusCode>(c)) == name) {
      return static_cast<absl::StatusCode>(c);
    }
  }
  return absl::StatusCode::kUnknown;
}

absl::Status LoadCase(const std::string& dir, LoadedCase* out) {
  out->dir = dir;
  absl::Status s = ParseJson(dir + "/case.json", &out->spec);
  if (!s.ok()) return s;
  if (out->spec.graph().empty() == out->spec.saved_model().empty()) {
    return absl::InvalidArgumentError(
        dir + "/case.json must name a graph or a saved_model, not both");
  }
  if (!out->spec.graph().empty()) {
    s = ReadGraphDefFromFile(dir + "/" + out->spec.graph(), &out->graph);
    if (!s.ok()) return s;
  }
  out->feeds.clear();
  for (const TensorFile& f : out->spec.feeds()) {
    Tensor t;
    s = ReadTensorFile(dir + "/" + f.file(), &t);
    if (!s.ok()) return s;
    out->feeds.emplace_back(f.name(), std::move(t));
  }
  return absl::OkStatus();
}

absl::Status WriteCase(
    const std::string& dir, OracleCase spec, const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds) {
  std::error_code ec;
  fs::create_directories(dir + "/feeds", ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir));
  spec.set_graph("graph.pb");
  absl::Status s = WriteFile(dir + "/graph.pb", graph.SerializeAsString());
  if (!s.ok()) return s;
  spec.clear_feeds();
  for (size_t i = 0; i < feeds.size(); ++i) {
    TensorProto proto;
    TensorToProto(feeds[i].second, &proto);
    const std::string file = absl::StrCat("feeds/", i, ".pb");
    s = WriteFile(dir + "/" + file, proto.SerializeAsString());
    if (!s.ok()) return s;
    TensorFile* f = spec.add_feeds();
    f->set_name(feeds[i].first);
    f->set_file(file);
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  google::protobuf::util::MessageToJsonString(spec, &json, opts);
  return WriteFile(dir + "/case.json", json);
}

absl::Status LoadOutcome(const std::string& dir, CaseOutcome* out) {
  OracleResult result;
  absl::Status s = ParseJson(dir + "/result.json", &result);
  if (!s.ok()) return s;
  const absl::StatusCode code = CodeFromName(result.code());
  out->status = code == absl::StatusCode::kOk
                    ? absl::OkStatus()
                    : absl::Status(code, result.message());
  out->phase = result.phase();
  out->steps.clear();
  for (const StepValues& step : result.steps()) {
    std::vector<Tensor> values;
    for (const TensorFile& v : step.values()) {
      Tensor t;
      s = ReadTensorFile(dir + "/" + v.file(), &t);
      if (!s.ok()) return s;
      values.push_back(std::move(t));
    }
    out->steps.push_back(std::move(values));
  }
  return absl::OkStatus();
}

absl::Status WriteOutcome(const CaseOutcome& outcome,
                          const std::vector<std::string>& fetches,
                          const std::string& producer, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir));
  OracleResult result;
  result.set_producer(producer);
  result.set_code(CodeName(outcome.status.code()));
  result.set_message(std::string(outcome.status.message()));
  result.set_phase(outcome.phase);
  for (size_t step = 0; step < outcome.steps.size(); ++step) {
    StepValues* sv = result.add_steps();
    for (size_t i = 0; i < outcome.steps[step].size(); ++i) {
      const std::string file = absl::StrCat("s", step, "_f", i, ".pb");
      TensorProto proto;
      TensorToProto(outcome.steps[step][i], &proto);
      absl::Status s = WriteFile(dir + "/" + file, proto.SerializeAsString());
      if (!s.ok()) return s;
      TensorFile* tf = sv->add_values();
      tf->set_name(i < fetches.size() ? fetches[i] : "");
      tf->set_file(file);
    }
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  google::protobuf::util::MessageToJsonString(result, &json, opts);
  return WriteFile(dir + "/result.json", json);
}

absl::Status FindCaseDirs(const std::string& root,
                          std::vector<std::string>* out) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat("no case directory ", root));
  }
  std::vector<std::string> found;
  if (fs::exists(fs::path(root) / "case.json")) found.push_back(root);
  auto it = fs::recursive_directory_iterator(
      root, fs::directory_options::follow_directory_symlink, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_directory()) continue;
    if (it->path().filename() == "expected" ||
        it->path().filename() == "feeds") {
      it.disable_recursion_pending();
      continue;
    }
    if (fs::exists(it->path() / "case.json"))
      found.push_back(it->path().string());
  }
  if (ec)
    return absl::UnavailableError(
        absl::StrCat("cannot list ", root, ": ", ec.message()));
  std::sort(found.begin(), found.end());
  out->insert(out->end(), found.begin(), found.end());
  return absl::OkStatus();
}

}  // namespace oracle
}  // namespace stepflow
