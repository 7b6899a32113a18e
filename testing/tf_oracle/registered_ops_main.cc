// registered_ops: prints, as one JSON document, every op stepflow's
// binaries register with its OpDef (protobuf's JSON mapping, proto field
// names) and its kernels (device type, type constraints, host-memory
// args). The op differential's generator (testing/tf_ops) reads it to know
// which ops and dtypes to cover.
//
//   bazel run //testing/tf_oracle:registered_ops > ops.json
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

std::string KernelJson(const KernelDef& k) {
  std::vector<std::string> constraints;
  for (const auto& [attr, types] : k.constraints) {
    std::vector<std::string> names;
    for (DataType t : types) names.push_back(Quote(DataTypeString(t)));
    constraints.push_back(
        absl::StrCat(Quote(attr), ": [", absl::StrJoin(names, ", "), "]"));
  }
  std::vector<std::string> host;
  for (const std::string& a : k.host_memory_args) host.push_back(Quote(a));
  return absl::StrCat("{\"device_type\": ", Quote(k.device_type),
                      ", \"constraints\": {", absl::StrJoin(constraints, ", "),
                      "}, \"host_memory_args\": [", absl::StrJoin(host, ", "),
                      "], \"priority\": ", k.priority, "}");
}

int Main() {
  std::map<std::string, std::vector<std::string>> kernels;
  for (const KernelDef& k : KernelRegistry::Global()->ListKernels()) {
    kernels[k.op].push_back(KernelJson(k));
  }
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  std::vector<std::string> entries;
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    const OpDef* def = OpRegistry::Global()->LookUpOrNull(name);
    std::string def_json;
    google::protobuf::util::MessageToJsonString(*def, &def_json, opts);
    entries.push_back(absl::StrCat(
        "{\"op\": ", Quote(name), ", \"op_def\": ", def_json,
        ", \"kernels\": [", absl::StrJoin(kernels[name], ", "), "]}"));
  }
  std::printf("[\n%s\n]\n", absl::StrJoin(entries, ",\n").c_str());
  return 0;
}

}  // namespace
}  // namespace stepflow

int main() { return stepflow::Main(); }
