// TF_ApiDefMap: how language bindings present each op (api_def.proto),
// built from an OpList and refined by ApiDefs in text form, with
// TensorFlow's merge rules:
//   - an ApiDef for an op the map lacks is ignored;
//   - endpoints given replace the old ones; visibility replaces unless
//     DEFAULT_VISIBILITY; summary and description replace when non-empty;
//     deprecation fields are not merged;
//   - args and attrs merge by name (FailedPrecondition for a name the op
//     lacks): rename_to and descriptions when non-empty, an attr's default
//     when set; arg_order must be a permutation of the base's;
//   - description prefixes accumulate in front ("new\nold"), suffixes
//     behind ("old\nnew").
// The first TF_ApiDefMapGet finalises the docs (prefix and suffix joined to
// the description; `name` in backticks becomes `rename_to` in every
// description and the summary) and freezes the map: a later Put is
// FailedPrecondition. A Get of an op the map lacks returns NULL and leaves
// the status alone, as TensorFlow does.
//
// Thread-safety: a TF_ApiDefMap is not safe for concurrent use (as in
// TensorFlow).
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "proto/api_def.pb.h"
#include "proto/op_def.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/status_macros.h"

using stepflow::c_api::Set;

struct TF_ApiDefMap {
  std::map<std::string, stepflow::ApiDef> defs;
  bool docs_finalised = false;
};

namespace stepflow {
namespace {

ApiDef ApiDefFromOpDef(const OpDef& op) {
  ApiDef def;
  def.set_graph_op_name(op.name());
  def.set_visibility(ApiDef::VISIBLE);
  def.add_endpoint()->set_name(op.name());
  auto add_args = [](const auto& args, auto* out) {
    for (const OpDef::ArgDef& arg : args) {
      ApiDef::Arg* a = out->Add();
      a->set_name(arg.name());
      a->set_rename_to(arg.name());
      a->set_description(arg.description());
    }
  };
  add_args(op.input_arg(), def.mutable_in_arg());
  add_args(op.output_arg(), def.mutable_out_arg());
  for (const OpDef::ArgDef& arg : op.input_arg()) def.add_arg_order(arg.name());
  for (const OpDef::AttrDef& attr : op.attr()) {
    ApiDef::Attr* a = def.add_attr();
    a->set_name(attr.name());
    a->set_rename_to(attr.name());
    if (attr.has_default_value())
      *a->mutable_default_value() = attr.default_value();
    a->set_description(attr.description());
  }
  def.set_summary(op.summary());
  def.set_description(op.description());
  return def;
}

// Joins `add` to `text` on the side `in_front` says, with a newline.
void Accumulate(const std::string& add, bool in_front, std::string* text) {
  if (add.empty()) return;
  if (text->empty()) {
    *text = add;
  } else {
    *text = in_front ? absl::StrCat(add, "\n", *text)
                     : absl::StrCat(*text, "\n", add);
  }
}

absl::Status MergeArgs(
    const google::protobuf::RepeatedPtrField<ApiDef::Arg>& from,
    const std::string& op,
    google::protobuf::RepeatedPtrField<ApiDef::Arg>* to) {
  for (const ApiDef::Arg& arg : from) {
    ApiDef::Arg* base = nullptr;
    for (ApiDef::Arg& b : *to) {
      if (b.name() == arg.name()) base = &b;
    }
    if (base == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Argument ", arg.name(), " not defined in base api for ", op));
    }
    if (!arg.rename_to().empty()) base->set_rename_to(arg.rename_to());
    if (!arg.description().empty()) base->set_description(arg.description());
  }
  return absl::OkStatus();
}

absl::Status Merge(const ApiDef& from, ApiDef* to) {
  const std::string& op = to->graph_op_name();
  if (from.visibility() != ApiDef::DEFAULT_VISIBILITY) {
    to->set_visibility(from.visibility());
  }
  if (from.endpoint_size() > 0) *to->mutable_endpoint() = from.endpoint();
  SF_RETURN_IF_ERROR(MergeArgs(from.in_arg(), op, to->mutable_in_arg()));
  SF_RETURN_IF_ERROR(MergeArgs(from.out_arg(), op, to->mutable_out_arg()));
  if (from.arg_order_size() > 0) {
    if (from.arg_order_size() != to->arg_order_size()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Invalid number of arguments ", from.arg_order_size(),
                       " for ", op, ". Expected: ", to->arg_order_size()));
    }
    std::multiset<std::string> want(to->arg_order().begin(),
                                    to->arg_order().end());
    std::multiset<std::string> got(from.arg_order().begin(),
                                   from.arg_order().end());
    if (want != got) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Invalid arg_order: ", absl::StrJoin(from.arg_order(), ", "), " for ",
          op,
          ". All elements in arg_order override must match base "
          "arg_order: ",
          absl::StrJoin(to->arg_order(), ", ")));
    }
    *to->mutable_arg_order() = from.arg_order();
  }
  for (const ApiDef::Attr& attr : from.attr()) {
    ApiDef::Attr* base = nullptr;
    for (ApiDef::Attr& b : *to->mutable_attr()) {
      if (b.name() == attr.name()) base = &b;
    }
    if (base == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Attribute ", attr.name(), " not defined in base api for ", op));
    }
    if (!attr.rename_to().empty()) base->set_rename_to(attr.rename_to());
    if (attr.has_default_value()) {
      *base->mutable_default_value() = attr.default_value();
    }
    if (!attr.description().empty()) base->set_description(attr.description());
  }
  if (!from.summary().empty()) to->set_summary(from.summary());
  if (!from.description().empty()) to->set_description(from.description());
  Accumulate(from.description_prefix(), /*in_front=*/true,
             to->mutable_description_prefix());
  Accumulate(from.description_suffix(), /*in_front=*/false,
             to->mutable_description_suffix());
  return absl::OkStatus();
}

void FinaliseDocs(ApiDef* def) {
  std::string description = def->description();
  if (!def->description_prefix().empty()) {
    description = absl::StrCat(def->description_prefix(), "\n", description);
  }
  if (!def->description_suffix().empty()) {
    description = absl::StrCat(description, "\n", def->description_suffix());
  }
  def->set_description(description);
  def->clear_description_prefix();
  def->clear_description_suffix();
  auto rename = [def](const std::string& from, const std::string& to) {
    if (from == to || to.empty()) return;
    const std::string a = absl::StrCat("`", from, "`");
    const std::string b = absl::StrCat("`", to, "`");
    auto in = [&](std::string* text) {
      *text = absl::StrReplaceAll(*text, {{a, b}});
    };
    for (ApiDef::Arg& arg : *def->mutable_in_arg())
      in(arg.mutable_description());
    for (ApiDef::Arg& arg : *def->mutable_out_arg()) {
      in(arg.mutable_description());
    }
    for (ApiDef::Attr& attr : *def->mutable_attr()) {
      in(attr.mutable_description());
    }
    in(def->mutable_summary());
    in(def->mutable_description());
  };
  // Copies: renaming edits the descriptions the loops walk.
  for (const ApiDef::Arg arg : def->in_arg())
    rename(arg.name(), arg.rename_to());
  for (const ApiDef::Arg arg : def->out_arg())
    rename(arg.name(), arg.rename_to());
  for (const ApiDef::Attr attr : def->attr()) {
    rename(attr.name(), attr.rename_to());
  }
}

// Text-format errors as "line(column): message", both 1-based.
class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    absl::StrAppend(&text, line + 1, "(", column + 1, "): ", message, "\n");
  }
  std::string text;
};

}  // namespace
}  // namespace stepflow

extern "C" {

TF_ApiDefMap* TF_NewApiDefMap(TF_Buffer* op_list_buffer, TF_Status* status) {
  stepflow::OpList ops;
  if (op_list_buffer == nullptr ||
      (op_list_buffer->data == nullptr && op_list_buffer->length > 0) ||
      !ops.ParseFromArray(op_list_buffer->data,
                          static_cast<int>(op_list_buffer->length))) {
    Set(status, absl::InvalidArgumentError(
                    "TF_NewApiDefMap: op_list_buffer is not a serialized "
                    "OpList"));
    return nullptr;
  }
  auto* map = new TF_ApiDefMap;
  for (const stepflow::OpDef& op : ops.op()) {
    map->defs[op.name()] = stepflow::ApiDefFromOpDef(op);
  }
  Set(status, absl::OkStatus());
  return map;
}

void TF_DeleteApiDefMap(TF_ApiDefMap* apimap) { delete apimap; }

void TF_ApiDefMapPut(TF_ApiDefMap* api_def_map, const char* text,
                     size_t text_len, TF_Status* status) {
  if (api_def_map == nullptr || (text == nullptr && text_len > 0)) {
    Set(status, absl::InvalidArgumentError("TF_ApiDefMapPut: NULL argument"));
    return;
  }
  if (api_def_map->docs_finalised) {
    Set(status, absl::FailedPreconditionError(
                    "TF_ApiDefMapPut cannot be called after TF_ApiDefMapGet "
                    "has been called."));
    return;
  }
  stepflow::ApiDefs defs;
  google::protobuf::TextFormat::Parser parser;
  stepflow::TextErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text, text_len), &defs)) {
    Set(status, absl::InvalidArgumentError(errors.text));
    return;
  }
  for (const stepflow::ApiDef& def : defs.op()) {
    auto it = api_def_map->defs.find(def.graph_op_name());
    if (it == api_def_map->defs.end()) continue;
    absl::Status s = stepflow::Merge(def, &it->second);
    if (!s.ok()) {
      Set(status, s);
      return;
    }
  }
  Set(status, absl::OkStatus());
}

TF_Buffer* TF_ApiDefMapGet(TF_ApiDefMap* api_def_map, const char* name,
                           size_t name_len, TF_Status* status) {
  if (api_def_map == nullptr || (name == nullptr && name_len > 0)) {
    Set(status, absl::InvalidArgumentError("TF_ApiDefMapGet: NULL argument"));
    return nullptr;
  }
  if (!api_def_map->docs_finalised) {
    for (auto& [op, def] : api_def_map->defs) stepflow::FinaliseDocs(&def);
    api_def_map->docs_finalised = true;
  }
  auto it = api_def_map->defs.find(std::string(name, name_len));
  if (it == api_def_map->defs.end()) return nullptr;
  TF_Buffer* buffer = TF_NewBuffer();
  stepflow::c_api::SetBufferBytes(it->second.SerializeAsString(), buffer);
  Set(status, absl::OkStatus());
  return buffer;
}

}  // extern "C"
