#include "runtime/saved_model/signature.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow {
namespace {

template <typename Map>
std::string SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) keys.push_back(entry.first);
  std::sort(keys.begin(), keys.end());
  return keys.empty() ? "none" : absl::StrJoin(keys, ", ");
}

absl::Status FindTensor(
    const google::protobuf::Map<std::string, TensorInfo>& tensors,
    const std::string& signature_key, const std::string& kind,
    const std::string& key, TensorInfo* out) {
  const auto it = tensors.find(key);
  if (it == tensors.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature '", signature_key, "' has no ", kind, " '", key,
                     "'; its ", kind, "s are: ", SortedKeys(tensors)));
  }
  if (it->second.encoding_case() != TensorInfo::kName) {
    return absl::UnimplementedError(
        absl::StrCat(kind, " '", key, "' of signature '", signature_key,
                     "' is a sparse or composite tensor, which is not "
                     "supported; only dense tensors are"));
  }
  *out = it->second;
  return absl::OkStatus();
}

}  // namespace

absl::Status FindSignature(const MetaGraphDef& meta_graph_def,
                           const std::string& signature_key,
                           const SignatureDef** out) {
  const auto& signatures = meta_graph_def.signature_def();
  const auto it = signatures.find(signature_key);
  if (it == signatures.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the MetaGraph has no signature '", signature_key,
                     "'; its signatures are: ", SortedKeys(signatures)));
  }
  *out = &it->second;
  return absl::OkStatus();
}

absl::Status SignatureInputTensor(const SignatureDef& signature,
                                  const std::string& signature_key,
                                  const std::string& key, TensorInfo* out) {
  return FindTensor(signature.inputs(), signature_key, "input", key, out);
}

absl::Status SignatureOutputTensor(const SignatureDef& signature,
                                   const std::string& signature_key,
                                   const std::string& key, TensorInfo* out) {
  return FindTensor(signature.outputs(), signature_key, "output", key, out);
}

}  // namespace stepflow
