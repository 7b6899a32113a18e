// OpDefBuilder: parses TensorFlow-style Input/Output/Attr specs into an
// OpDef. See op.h for the accepted syntax.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "runtime/framework/op.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

// ---------------------------------------------------------------------------
// Small scanner over a spec string.

void SkipSpaces(absl::string_view* s) {
  while (!s->empty() &&
         absl::ascii_isspace(static_cast<unsigned char>((*s)[0]))) {
    s->remove_prefix(1);
  }
}

bool Consume(absl::string_view* s, absl::string_view token) {
  SkipSpaces(s);
  return absl::ConsumePrefix(s, token);
}

// [A-Za-z_][A-Za-z0-9_]*
bool ConsumeIdent(absl::string_view* s, std::string* out) {
  SkipSpaces(s);
  if (s->empty()) return false;
  const unsigned char c0 = static_cast<unsigned char>((*s)[0]);
  if (!absl::ascii_isalpha(c0) && c0 != '_') return false;
  size_t n = 1;
  while (n < s->size()) {
    const unsigned char c = static_cast<unsigned char>((*s)[n]);
    if (!absl::ascii_isalnum(c) && c != '_') break;
    ++n;
  }
  *out = std::string(s->substr(0, n));
  s->remove_prefix(n);
  return true;
}

bool AtEnd(absl::string_view s) {
  SkipSpaces(&s);
  return s.empty();
}

// ---------------------------------------------------------------------------
// Named type sets.

std::vector<DataType> RealNumberTypes() {
  return {DT_FLOAT, DT_DOUBLE,   DT_INT32,  DT_UINT8, DT_INT16,  DT_INT8,
          DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF,  DT_UINT32, DT_UINT64};
}

std::vector<DataType> NumberTypes() {
  return {DT_FLOAT,      DT_DOUBLE,    DT_INT32,  DT_UINT8,    DT_INT16,
          DT_INT8,       DT_COMPLEX64, DT_INT64,  DT_BFLOAT16, DT_UINT16,
          DT_COMPLEX128, DT_HALF,      DT_UINT32, DT_UINT64};
}

bool IsBaseAttrType(absl::string_view t) {
  return t == "string" || t == "int" || t == "float" || t == "bool" ||
         t == "type" || t == "shape" || t == "tensor" || t == "func";
}

// A concrete, non-ref data type name ("float", "DT_FLOAT").
bool ParseConcreteType(absl::string_view name, DataType* dt) {
  DataType parsed;
  if (!DataTypeFromString(name, &parsed) || IsRefType(parsed) ||
      parsed == DT_INVALID) {
    return false;
  }
  *dt = parsed;
  return true;
}

absl::Status SpecError(absl::string_view why) {
  return absl::InvalidArgumentError(std::string(why));
}

// Parses one (non-list) attr type: a base type name, a named type set, or
// an explicit set "{...}". Sets `*type` and fills `allowed` when restricted.
absl::Status ParseSingleAttrType(absl::string_view* s, std::string* type,
                                 AttrValue* allowed, bool* has_allowed) {
  SkipSpaces(s);
  if (Consume(s, "{")) {
    // "{float, int32}" or "{'SAME', 'VALID'}".
    AttrValue::ListValue* list = allowed->mutable_list();
    *has_allowed = true;
    bool is_string_set = false;
    bool first = true;
    while (true) {
      if (Consume(s, "}")) break;
      if (!first && !Consume(s, ","))
        return SpecError("expected ',' or '}' in set");
      SkipSpaces(s);
      if (!s->empty() && ((*s)[0] == '\'' || (*s)[0] == '"')) {
        if (!first && !is_string_set)
          return SpecError("mixed set of strings and types");
        is_string_set = true;
        const char quote = (*s)[0];
        const size_t end = s->find(quote, 1);
        if (end == absl::string_view::npos)
          return SpecError("unterminated string in set");
        list->add_s(std::string(s->substr(1, end - 1)));
        s->remove_prefix(end + 1);
      } else {
        if (!first && is_string_set)
          return SpecError("mixed set of strings and types");
        std::string name;
        if (!ConsumeIdent(s, &name))
          return SpecError("expected a type name in set");
        DataType dt;
        if (!ParseConcreteType(name, &dt)) {
          return SpecError(absl::StrCat("unknown type '", name, "' in set"));
        }
        list->add_type(dt);
      }
      first = false;
    }
    if (first) return SpecError("empty set");
    *type = is_string_set ? "string" : "type";
    return absl::OkStatus();
  }
  std::string name;
  if (!ConsumeIdent(s, &name)) return SpecError("expected an attr type");
  if (name == "numbertype" || name == "realnumbertype" ||
      name == "quantizedtype") {
    *has_allowed = true;
    AttrValue::ListValue* list = allowed->mutable_list();
    // TensorFlow's sets: numbertype is the real and complex types plus the
    // quantized ones, realnumbertype leaves out both.
    const std::vector<DataType> quantized = {DT_QINT8, DT_QUINT8, DT_QINT32,
                                             DT_QINT16, DT_QUINT16};
    std::vector<DataType> types;
    if (name == "numbertype") {
      types = NumberTypes();
      types.insert(types.end(), quantized.begin(), quantized.end());
    }
    if (name == "realnumbertype") types = RealNumberTypes();
    if (name == "quantizedtype") types = quantized;
    for (DataType dt : types) list->add_type(dt);
    *type = "type";
    return absl::OkStatus();
  }
  if (!IsBaseAttrType(name)) {
    return SpecError(absl::StrCat("unknown attr type '", name, "'"));
  }
  *type = name;
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Default values.

// Each parser below consumes one default value of its attr type from `*s`,
// adding it to `list` (when non-null) or setting it on `value`.

absl::Status ParseStringValue(absl::string_view* s, AttrValue* value,
                              AttrValue::ListValue* list) {
  if (s->empty() || ((*s)[0] != '\'' && (*s)[0] != '"')) {
    return SpecError("string default must be quoted");
  }
  const char quote = (*s)[0];
  size_t end = 1;
  while (end < s->size() && (*s)[end] != quote) {
    if ((*s)[end] == '\\') ++end;
    ++end;
  }
  if (end >= s->size()) return SpecError("unterminated string default");
  std::string unescaped;
  if (!absl::CUnescape(s->substr(1, end - 1), &unescaped)) {
    return SpecError("bad escape in string default");
  }
  s->remove_prefix(end + 1);
  if (list)
    list->add_s(unescaped);
  else
    value->set_s(unescaped);
  return absl::OkStatus();
}

absl::Status ParseNumberValue(absl::string_view base, absl::string_view* s,
                              AttrValue* value, AttrValue::ListValue* list) {
  size_t n = 0;
  while (n < s->size()) {
    const char c = (*s)[n];
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' &&
        c != '+' && c != '.') {
      break;
    }
    ++n;
  }
  absl::string_view tok = s->substr(0, n);
  if (base == "int") {
    int64_t v;
    if (!absl::SimpleAtoi(tok, &v)) {
      return SpecError(absl::StrCat("bad int default '", tok, "'"));
    }
    if (list)
      list->add_i(v);
    else
      value->set_i(v);
  } else {
    float v;
    if (!absl::SimpleAtof(tok, &v)) {
      return SpecError(absl::StrCat("bad float default '", tok, "'"));
    }
    if (list)
      list->add_f(v);
    else
      value->set_f(v);
  }
  s->remove_prefix(n);
  return absl::OkStatus();
}

absl::Status ParseBoolValue(absl::string_view* s, AttrValue* value,
                            AttrValue::ListValue* list) {
  std::string tok;
  if (!ConsumeIdent(s, &tok) || (tok != "true" && tok != "false")) {
    return SpecError("bool default must be true or false");
  }
  if (list)
    list->add_b(tok == "true");
  else
    value->set_b(tok == "true");
  return absl::OkStatus();
}

absl::Status ParseTypeValue(absl::string_view* s, AttrValue* value,
                            AttrValue::ListValue* list) {
  std::string tok;
  DataType dt;
  if (!ConsumeIdent(s, &tok) || !ParseConcreteType(tok, &dt)) {
    return SpecError(absl::StrCat("bad type default '", tok, "'"));
  }
  if (list)
    list->add_type(dt);
  else
    value->set_type(dt);
  return absl::OkStatus();
}

// "{unknown_rank: true}" or "[d0, d1, ...]" (-1 for an unknown dimension).
absl::Status ParseShapeValue(absl::string_view* s, AttrValue* value,
                             AttrValue::ListValue* list) {
  constexpr char kForm[] =
      "shape default must be {unknown_rank: true} or [dims]";
  TensorShapeProto shape;
  if (Consume(s, "{")) {
    std::string key, val;
    if (!ConsumeIdent(s, &key) || key != "unknown_rank" || !Consume(s, ":") ||
        !ConsumeIdent(s, &val) || val != "true" || !Consume(s, "}")) {
      return SpecError(kForm);
    }
    shape.set_unknown_rank(true);
  } else if (Consume(s, "[")) {
    for (bool first = true; !Consume(s, "]"); first = false) {
      if (!first && !Consume(s, ",")) return SpecError("bad shape default");
      SkipSpaces(s);
      size_t n = 0;
      while (n < s->size() &&
             ((*s)[n] == '-' ||
              absl::ascii_isdigit(static_cast<unsigned char>((*s)[n])))) {
        ++n;
      }
      int64_t d;
      if (!absl::SimpleAtoi(s->substr(0, n), &d) || d < -1) {
        return SpecError("bad dimension in shape default");
      }
      s->remove_prefix(n);
      shape.add_dim()->set_size(d);
    }
  } else {
    return SpecError(kForm);
  }
  if (list)
    *list->add_shape() = shape;
  else
    *value->mutable_shape() = shape;
  return absl::OkStatus();
}

// "{<TensorProto in text format>}".
absl::Status ParseTensorValue(absl::string_view* s, AttrValue* value,
                              AttrValue::ListValue* list) {
  if (!Consume(s, "{"))
    return SpecError("tensor default must be {<text proto>}");
  int depth = 1;
  size_t n = 0;
  while (n < s->size() && depth > 0) {
    if ((*s)[n] == '{') ++depth;
    if ((*s)[n] == '}') --depth;
    ++n;
  }
  if (depth != 0) return SpecError("unbalanced braces in tensor default");
  TensorProto tensor;
  if (!google::protobuf::TextFormat::ParseFromString(
          std::string(s->substr(0, n - 1)), &tensor)) {
    return SpecError("tensor default is not a valid TensorProto");
  }
  s->remove_prefix(n);
  if (list)
    *list->add_tensor() = tensor;
  else
    *value->mutable_tensor() = tensor;
  return absl::OkStatus();
}

// Consumes one scalar of `base` type from `*s`, adding it to `list` (when
// non-null) or setting it on `value`.
absl::Status ParseScalarValue(absl::string_view base, absl::string_view* s,
                              AttrValue* value, AttrValue::ListValue* list) {
  SkipSpaces(s);
  if (base == "string") return ParseStringValue(s, value, list);
  if (base == "int" || base == "float") {
    return ParseNumberValue(base, s, value, list);
  }
  if (base == "bool") return ParseBoolValue(s, value, list);
  if (base == "type") return ParseTypeValue(s, value, list);
  if (base == "shape") return ParseShapeValue(s, value, list);
  if (base == "tensor") return ParseTensorValue(s, value, list);
  return SpecError(
      absl::StrCat("attrs of type ", base, " cannot have defaults"));
}

absl::Status ParseDefault(absl::string_view type, absl::string_view text,
                          AttrValue* value) {
  absl::string_view s = text;
  if (absl::ConsumePrefix(&type, "list(")) {
    absl::ConsumeSuffix(&type, ")");
    if (!Consume(&s, "[")) return SpecError("list default must be [...]");
    AttrValue::ListValue* list = value->mutable_list();
    bool first = true;
    while (!Consume(&s, "]")) {
      if (!first && !Consume(&s, ","))
        return SpecError("expected ',' or ']' in list default");
      SF_RETURN_IF_ERROR(ParseScalarValue(type, &s, nullptr, list));
      first = false;
    }
  } else {
    SF_RETURN_IF_ERROR(ParseScalarValue(type, &s, value, nullptr));
  }
  if (!AtEnd(s)) {
    return SpecError(absl::StrCat("trailing text after default '", text, "'"));
  }
  return absl::OkStatus();
}

// Checks a default value against the attr's allowed set and minimum.
absl::Status CheckDefault(const OpDef::AttrDef& attr) {
  const AttrValue& v = attr.default_value();
  if (attr.has_minimum()) {
    if (attr.type() == "int" && v.i() < attr.minimum()) {
      return SpecError(absl::StrCat("default ", v.i(), " is below minimum ",
                                    attr.minimum()));
    }
    if (absl::StartsWith(attr.type(), "list(")) {
      const AttrValue::ListValue& l = v.list();
      const int64_t len =
          std::max({l.s_size(), l.i_size(), l.f_size(), l.b_size(),
                    l.type_size(), l.shape_size(), l.tensor_size()});
      if (len < attr.minimum()) {
        return SpecError(absl::StrCat("default list length ", len,
                                      " is below minimum ", attr.minimum()));
      }
    }
  }
  if (attr.has_allowed_values()) {
    const AttrValue::ListValue& allowed = attr.allowed_values().list();
    auto type_ok = [&](DataType dt) {
      return std::find(allowed.type().begin(), allowed.type().end(), dt) !=
             allowed.type().end();
    };
    auto str_ok = [&](const std::string& s) {
      return std::find(allowed.s().begin(), allowed.s().end(), s) !=
             allowed.s().end();
    };
    if (attr.type() == "type" && !type_ok(v.type())) {
      return SpecError(absl::StrCat("default ", DataTypeString(v.type()),
                                    " is not in the allowed set"));
    }
    if (attr.type() == "string" && !str_ok(v.s())) {
      return SpecError(
          absl::StrCat("default '", v.s(), "' is not in the allowed set"));
    }
    if (attr.type() == "list(type)") {
      for (int t : v.list().type()) {
        if (!type_ok(static_cast<DataType>(t))) {
          return SpecError("default list has a type outside the allowed set");
        }
      }
    }
    if (attr.type() == "list(string)") {
      for (const std::string& s : v.list().s()) {
        if (!str_ok(s))
          return SpecError("default list has a value outside the allowed set");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ParseAttrSpec(absl::string_view spec, OpDef::AttrDef* attr) {
  absl::string_view s = spec;
  std::string name;
  if (!ConsumeIdent(&s, &name)) return SpecError("expected an attr name");
  if (!Consume(&s, ":")) return SpecError("expected ':' after the attr name");
  attr->set_name(name);
  std::string type;
  AttrValue allowed;
  bool has_allowed = false;
  if (Consume(&s, "list(")) {
    std::string inner;
    SF_RETURN_IF_ERROR(ParseSingleAttrType(&s, &inner, &allowed, &has_allowed));
    if (!Consume(&s, ")")) return SpecError("expected ')' after list(");
    type = absl::StrCat("list(", inner, ")");
  } else {
    SF_RETURN_IF_ERROR(ParseSingleAttrType(&s, &type, &allowed, &has_allowed));
  }
  attr->set_type(type);
  if (has_allowed) *attr->mutable_allowed_values() = allowed;
  if (Consume(&s, ">=")) {
    if (type != "int" && !absl::StartsWith(type, "list(")) {
      return SpecError(absl::StrCat(
          "a minimum is only allowed for int and list attrs, not ", type));
    }
    SkipSpaces(&s);
    size_t n = 0;
    while (n < s.size() &&
           (s[n] == '-' ||
            absl::ascii_isdigit(static_cast<unsigned char>(s[n])))) {
      ++n;
    }
    int64_t min;
    if (!absl::SimpleAtoi(s.substr(0, n), &min))
      return SpecError("bad minimum");
    if (absl::StartsWith(type, "list(") && min < 0) {
      return SpecError("a list minimum must be >= 0");
    }
    s.remove_prefix(n);
    attr->set_has_minimum(true);
    attr->set_minimum(min);
  }
  if (Consume(&s, "=")) {
    SF_RETURN_IF_ERROR(ParseDefault(type, s, attr->mutable_default_value()));
    SF_RETURN_IF_ERROR(CheckDefault(*attr));
  } else if (!AtEnd(s)) {
    return SpecError(absl::StrCat("unexpected text '", s, "'"));
  }
  return absl::OkStatus();
}

OpDef::AttrDef* FindAttrMutable(absl::string_view name, OpDef* op_def) {
  for (auto& attr : *op_def->mutable_attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

absl::Status ParseArgSpec(absl::string_view spec, OpDef* op_def,
                          OpDef::ArgDef* arg) {
  absl::string_view s = spec;
  std::string name;
  if (!ConsumeIdent(&s, &name)) return SpecError("expected an arg name");
  if (!Consume(&s, ":")) return SpecError("expected ':' after the arg name");
  arg->set_name(name);
  const bool is_ref = Consume(&s, "Ref(");
  arg->set_is_ref(is_ref);
  std::string first;
  if (!ConsumeIdent(&s, &first)) return SpecError("expected a type");
  std::string type_name = first;
  if (Consume(&s, "*")) {
    OpDef::AttrDef* number = FindAttrMutable(first, op_def);
    if (number == nullptr) {
      return SpecError(absl::StrCat("reference to unknown attr '", first, "'"));
    }
    if (number->type() != "int") {
      return SpecError(absl::StrCat(
          "attr '", first, "' used as a list length must be an int, not ",
          number->type()));
    }
    if (!number->has_minimum()) {
      number->set_has_minimum(true);
      number->set_minimum(1);
    } else if (number->minimum() < 0) {
      return SpecError(
          absl::StrCat("attr '", first, "' has a negative minimum"));
    }
    arg->set_number_attr(first);
    if (!ConsumeIdent(&s, &type_name))
      return SpecError("expected a type after '*'");
  }
  DataType dt;
  if (ParseConcreteType(type_name, &dt)) {
    arg->set_type(dt);
  } else {
    const OpDef::AttrDef* attr = FindAttrMutable(type_name, op_def);
    if (attr == nullptr) {
      return SpecError(
          absl::StrCat("reference to unknown attr '", type_name, "'"));
    }
    if (attr->type() == "type") {
      arg->set_type_attr(type_name);
    } else if (attr->type() == "list(type)" && arg->number_attr().empty()) {
      arg->set_type_list_attr(type_name);
    } else {
      return SpecError(absl::StrCat("attr '", type_name, "' of type ",
                                    attr->type(),
                                    " cannot be used as an arg type"));
    }
  }
  if (is_ref && !Consume(&s, ")")) return SpecError("expected ')' after Ref(");
  if (!AtEnd(s)) return SpecError(absl::StrCat("unexpected text '", s, "'"));
  return absl::OkStatus();
}

absl::Status ArgError(absl::string_view kind, absl::string_view spec,
                      absl::string_view op, const absl::Status& s) {
  return absl::InvalidArgumentError(absl::StrCat("Error parsing ", kind, " '",
                                                 spec, "' for op '", op,
                                                 "': ", s.message()));
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) {
  op_def_.set_name(std::move(op_name));
}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  op_def_.set_is_stateful(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  op_def_.set_is_commutative(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  op_def_.set_is_aggregate(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  op_def_.set_allows_uninitialized_input(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(std::string summary) {
  op_def_.set_summary(std::move(summary));
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeInferenceFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}

absl::Status OpDefBuilder::Finalize(OpDef* op_def) const {
  OpDef def = op_def_;
  const std::string& op = def.name();
  if (op.empty()) return absl::InvalidArgumentError("Op has no name");
  if (!errors_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Errors in op '", op, "': ", absl::StrJoin(errors_, "; ")));
  }
  std::set<std::string> attr_names;
  for (const std::string& spec : attrs_) {
    OpDef::AttrDef attr;
    absl::Status s = ParseAttrSpec(spec, &attr);
    if (!s.ok()) return ArgError("Attr", spec, op, s);
    if (!attr_names.insert(attr.name()).second) {
      return ArgError(
          "Attr", spec, op,
          SpecError(absl::StrCat("duplicate attr name '", attr.name(), "'")));
    }
    *def.add_attr() = attr;
  }
  std::set<std::string> input_names;
  for (const std::string& spec : inputs_) {
    OpDef::ArgDef arg;
    absl::Status s = ParseArgSpec(spec, &def, &arg);
    if (!s.ok()) return ArgError("Input", spec, op, s);
    if (!input_names.insert(arg.name()).second) {
      return ArgError(
          "Input", spec, op,
          SpecError(absl::StrCat("duplicate input name '", arg.name(), "'")));
    }
    *def.add_input_arg() = arg;
  }
  std::set<std::string> output_names;
  for (const std::string& spec : outputs_) {
    OpDef::ArgDef arg;
    absl::Status s = ParseArgSpec(spec, &def, &arg);
    if (!s.ok()) return ArgError("Output", spec, op, s);
    if (!output_names.insert(arg.name()).second) {
      return ArgError(
          "Output", spec, op,
          SpecError(absl::StrCat("duplicate output name '", arg.name(), "'")));
    }
    *def.add_output_arg() = arg;
  }
  *op_def = std::move(def);
  return absl::OkStatus();
}

}  // namespace stepflow
