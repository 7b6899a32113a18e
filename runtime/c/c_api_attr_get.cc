// Reading operation attributes: TF_OperationGetAttrMetadata, every
// TF_OperationGetAttr*, and attributes by position.
//
// Errors, all InvalidArgument as in TensorFlow: "Operation 'x' has no attr
// named 'y'." for a missing attribute, "AttrValue had value with type
// '<kind>' when '<kind>' expected" when it holds another kind, InvalidArgument
// for NULL outputs or too little storage.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace c_api {
namespace {

// The attribute, or null with `status` set.
const AttrValue* Lookup(TF_Operation* oper, const char* attr_name,
                        TF_Status* status) {
  if (oper == nullptr || attr_name == nullptr) {
    Set(status, absl::InvalidArgumentError("NULL operation or attr name"));
    return nullptr;
  }
  const Node* node = ToNode(oper);
  auto it = node->def().attr().find(attr_name);
  if (it == node->def().attr().end()) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("Operation '", node->name(),
                                 "' has no attr named '", attr_name, "'.")));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return &it->second;
}

// The attribute if it holds `kind` (a oneof case), else null with an error.
const AttrValue* LookupKind(TF_Operation* oper, const char* attr_name,
                            AttrValue::ValueCase kind, const char* what,
                            TF_Status* status) {
  const AttrValue* v = Lookup(oper, attr_name, status);
  if (v == nullptr) return nullptr;
  // An empty list reads as a list of any kind.
  if (v->value_case() != kind) {
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    "AttrValue had value with type '", AttrValueKind(*v),
                    "' when '", what, "' expected")));
    return nullptr;
  }
  return v;
}

const AttrValue::ListValue* LookupList(TF_Operation* oper,
                                       const char* attr_name,
                                       TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kList, "list", status);
  return v == nullptr ? nullptr : &v->list();
}

// The list's element kind from its contents, else from the OpDef's declared
// type ("list(int)"), else TF_ATTR_STRING.
TF_AttrType ListKind(const Node& node, const char* attr_name,
                     const AttrValue::ListValue& list) {
  if (list.s_size() > 0) return TF_ATTR_STRING;
  if (list.i_size() > 0) return TF_ATTR_INT;
  if (list.f_size() > 0) return TF_ATTR_FLOAT;
  if (list.b_size() > 0) return TF_ATTR_BOOL;
  if (list.type_size() > 0) return TF_ATTR_TYPE;
  if (list.shape_size() > 0) return TF_ATTR_SHAPE;
  if (list.tensor_size() > 0) return TF_ATTR_TENSOR;
  if (list.func_size() > 0) return TF_ATTR_FUNC;
  for (const auto& attr : node.op_def().attr()) {
    if (attr.name() != attr_name) continue;
    const std::string& t = attr.type();
    if (t == "list(int)") return TF_ATTR_INT;
    if (t == "list(float)") return TF_ATTR_FLOAT;
    if (t == "list(bool)") return TF_ATTR_BOOL;
    if (t == "list(type)") return TF_ATTR_TYPE;
    if (t == "list(shape)") return TF_ATTR_SHAPE;
    if (t == "list(tensor)") return TF_ATTR_TENSOR;
    if (t == "list(func)") return TF_ATTR_FUNC;
  }
  return TF_ATTR_STRING;
}

int64_t ListSize(const AttrValue::ListValue& l) {
  return l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
         l.shape_size() + l.tensor_size() + l.func_size();
}

// Sorted attribute names of `oper`.
std::vector<std::string> AttrNames(TF_Operation* oper) {
  std::vector<std::string> names;
  for (const auto& [name, value] : ToNode(oper)->def().attr()) {
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Copies up to max_values elements of `src` into `dst`, converting.
template <typename Src, typename Dst>
void CopyList(const Src& src, Dst* dst, int max_values) {
  const int n = std::min(max_values, static_cast<int>(src.size()));
  for (int i = 0; i < n; ++i) dst[i] = static_cast<Dst>(src.Get(i));
}

bool CheckOut(const void* out, int max_values, TF_Status* status) {
  if (max_values >= 0 && (max_values == 0 || out != nullptr)) return true;
  Set(status, absl::InvalidArgumentError("NULL output array"));
  return false;
}

absl::Status TensorFromAttr(const TensorProto& proto, TF_Tensor** out) {
  Tensor t;
  absl::Status s = TensorFromProto(proto, &t);
  if (!s.ok()) return s;
  return TensorToC(t, out);
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::AttrValue;
using stepflow::c_api::CheckOut;
using stepflow::c_api::CopyList;
using stepflow::c_api::LookupKind;
using stepflow::c_api::LookupList;
using stepflow::c_api::Set;

extern "C" {

TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper,
                                            const char* attr_name,
                                            TF_Status* status) {
  TF_AttrMetadata m{};
  m.is_list = 0;
  m.list_size = -1;
  m.type = TF_ATTR_STRING;
  m.total_size = -1;
  const AttrValue* v = stepflow::c_api::Lookup(oper, attr_name, status);
  if (v == nullptr) return m;
  switch (v->value_case()) {
    case AttrValue::kS:
      m.type = TF_ATTR_STRING;
      m.total_size = static_cast<int64_t>(v->s().size());
      break;
    case AttrValue::kI:
      m.type = TF_ATTR_INT;
      break;
    case AttrValue::kF:
      m.type = TF_ATTR_FLOAT;
      break;
    case AttrValue::kB:
      m.type = TF_ATTR_BOOL;
      break;
    case AttrValue::kType:
      m.type = TF_ATTR_TYPE;
      break;
    case AttrValue::kShape:
      m.type = TF_ATTR_SHAPE;
      m.total_size = v->shape().unknown_rank() ? -1 : v->shape().dim_size();
      break;
    case AttrValue::kTensor:
      m.type = TF_ATTR_TENSOR;
      break;
    case AttrValue::kFunc:
      m.type = TF_ATTR_FUNC;
      break;
    case AttrValue::kPlaceholder:
      m.type = TF_ATTR_PLACEHOLDER;
      break;
    case AttrValue::kList: {
      const AttrValue::ListValue& l = v->list();
      m.is_list = 1;
      m.list_size = stepflow::c_api::ListSize(l);
      m.type = stepflow::c_api::ListKind(*stepflow::c_api::ToNode(oper),
                                         attr_name, l);
      if (m.type == TF_ATTR_STRING) {
        m.total_size = 0;
        for (const std::string& s : l.s()) m.total_size += s.size();
      } else if (m.type == TF_ATTR_SHAPE) {
        m.total_size = 0;
        for (const auto& shape : l.shape()) {
          if (!shape.unknown_rank()) m.total_size += shape.dim_size();
        }
      }
      break;
    }
    default:
      Set(status, absl::InvalidArgumentError(absl::StrCat(
                      "Attribute '", attr_name, "' has no value")));
      break;
  }
  return m;
}

void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name,
                               void* value, size_t max_length,
                               TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kS, "string", status);
  if (v == nullptr) return;
  const size_t n = std::min(max_length, v->s().size());
  if (n > 0 && value == nullptr) {
    Set(status, absl::InvalidArgumentError("NULL output buffer"));
    return;
  }
  if (n > 0) std::memcpy(value, v->s().data(), n);
}

void TF_OperationGetAttrStringList(TF_Operation* oper, const char* attr_name,
                                   void** values, size_t* lengths,
                                   int max_values, void* storage,
                                   size_t storage_size, TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l == nullptr || !CheckOut(values, max_values, status) ||
      !CheckOut(lengths, max_values, status)) {
    return;
  }
  const int n = std::min(max_values, l->s_size());
  char* p = static_cast<char*>(storage);
  size_t left = storage_size;
  for (int i = 0; i < n; ++i) {
    const std::string& s = l->s(i);
    if (s.size() > left || (p == nullptr && !s.empty())) {
      Set(status, absl::InvalidArgumentError(
                      "Not enough storage to hold the requested list of "
                      "strings"));
      return;
    }
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    values[i] = p;
    lengths[i] = s.size();
    if (p != nullptr) p += s.size();
    left -= s.size();
  }
}

void TF_OperationGetAttrInt(TF_Operation* oper, const char* attr_name,
                            int64_t* value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kI, "int", status);
  if (v != nullptr && CheckOut(value, 1, status)) *value = v->i();
}

void TF_OperationGetAttrIntList(TF_Operation* oper, const char* attr_name,
                                int64_t* values, int max_values,
                                TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l != nullptr && CheckOut(values, max_values, status)) {
    CopyList(l->i(), values, max_values);
  }
}

void TF_OperationGetAttrFloat(TF_Operation* oper, const char* attr_name,
                              float* value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kF, "float", status);
  if (v != nullptr && CheckOut(value, 1, status)) *value = v->f();
}

void TF_OperationGetAttrFloatList(TF_Operation* oper, const char* attr_name,
                                  float* values, int max_values,
                                  TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l != nullptr && CheckOut(values, max_values, status)) {
    CopyList(l->f(), values, max_values);
  }
}

void TF_OperationGetAttrBool(TF_Operation* oper, const char* attr_name,
                             unsigned char* value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kB, "bool", status);
  if (v != nullptr && CheckOut(value, 1, status)) *value = v->b() ? 1 : 0;
}

void TF_OperationGetAttrBoolList(TF_Operation* oper, const char* attr_name,
                                 unsigned char* values, int max_values,
                                 TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l != nullptr && CheckOut(values, max_values, status)) {
    CopyList(l->b(), values, max_values);
  }
}

void TF_OperationGetAttrType(TF_Operation* oper, const char* attr_name,
                             TF_DataType* value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kType, "type", status);
  if (v != nullptr && CheckOut(value, 1, status)) {
    *value = static_cast<TF_DataType>(v->type());
  }
}

void TF_OperationGetAttrTypeList(TF_Operation* oper, const char* attr_name,
                                 TF_DataType* values, int max_values,
                                 TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l == nullptr || !CheckOut(values, max_values, status)) return;
  const int n = std::min(max_values, l->type_size());
  for (int i = 0; i < n; ++i) values[i] = static_cast<TF_DataType>(l->type(i));
}

void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name,
                              int64_t* value, int num_dims, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kShape, "shape", status);
  if (v == nullptr || !CheckOut(value, num_dims, status)) return;
  const int n = std::min(num_dims, v->shape().dim_size());
  for (int i = 0; i < n; ++i) value[i] = v->shape().dim(i).size();
}

void TF_OperationGetAttrShapeList(TF_Operation* oper, const char* attr_name,
                                  int64_t** dims, int* num_dims, int num_shapes,
                                  int64_t* storage, int storage_size,
                                  TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l == nullptr || !CheckOut(dims, num_shapes, status) ||
      !CheckOut(num_dims, num_shapes, status)) {
    return;
  }
  const int n = std::min(num_shapes, l->shape_size());
  int64_t* p = storage;
  int left = storage_size;
  for (int i = 0; i < n; ++i) {
    const stepflow::TensorShapeProto& shape = l->shape(i);
    if (shape.unknown_rank()) {
      dims[i] = nullptr;
      num_dims[i] = -1;
      continue;
    }
    const int rank = shape.dim_size();
    if (rank > left || (rank > 0 && p == nullptr)) {
      Set(status, absl::InvalidArgumentError(
                      "Not enough storage to hold the requested list of "
                      "shapes"));
      return;
    }
    for (int d = 0; d < rank; ++d) p[d] = shape.dim(d).size();
    dims[i] = p;
    num_dims[i] = rank;
    if (p != nullptr) p += rank;
    left -= rank;
  }
}

void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper,
                                         const char* attr_name,
                                         TF_Buffer* value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kShape, "shape", status);
  if (v == nullptr || !CheckOut(value, 1, status)) return;
  stepflow::c_api::SetBufferBytes(v->shape().SerializeAsString(), value);
}

void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper,
                                             const char* attr_name,
                                             TF_Buffer** values, int max_values,
                                             TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l == nullptr || !CheckOut(values, max_values, status)) return;
  const int n = std::min(max_values, l->shape_size());
  for (int i = 0; i < n; ++i) {
    values[i] = TF_NewBuffer();
    stepflow::c_api::SetBufferBytes(l->shape(i).SerializeAsString(), values[i]);
  }
}

void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name,
                               TF_Tensor** value, TF_Status* status) {
  const AttrValue* v =
      LookupKind(oper, attr_name, AttrValue::kTensor, "tensor", status);
  if (v == nullptr || !CheckOut(value, 1, status)) return;
  *value = nullptr;
  Set(status, stepflow::c_api::TensorFromAttr(v->tensor(), value));
}

void TF_OperationGetAttrTensorList(TF_Operation* oper, const char* attr_name,
                                   TF_Tensor** values, int max_values,
                                   TF_Status* status) {
  const AttrValue::ListValue* l = LookupList(oper, attr_name, status);
  if (l == nullptr || !CheckOut(values, max_values, status)) return;
  const int n = std::min(max_values, l->tensor_size());
  for (int i = 0; i < n; ++i) values[i] = nullptr;
  for (int i = 0; i < n; ++i) {
    absl::Status s = stepflow::c_api::TensorFromAttr(l->tensor(i), &values[i]);
    if (!s.ok()) {
      for (int j = 0; j < i; ++j) {
        TF_DeleteTensor(values[j]);
        values[j] = nullptr;
      }
      Set(status, std::move(s));
      return;
    }
  }
}

void TF_OperationGetAttrValueProto(TF_Operation* oper, const char* attr_name,
                                   TF_Buffer* output_attr_value,
                                   TF_Status* status) {
  const AttrValue* v = stepflow::c_api::Lookup(oper, attr_name, status);
  if (v == nullptr || !CheckOut(output_attr_value, 1, status)) return;
  stepflow::c_api::SetBufferBytes(v->SerializeAsString(), output_attr_value);
}

int TF_OperationGetNumAttrs(TF_Operation* oper) {
  return oper == nullptr
             ? 0
             : static_cast<int>(
                   stepflow::c_api::ToNode(oper)->def().attr_size());
}

int TF_OperationGetAttrNameLength(TF_Operation* oper, int i) {
  if (oper == nullptr) return -1;
  const std::vector<std::string> names = stepflow::c_api::AttrNames(oper);
  if (i < 0 || i >= static_cast<int>(names.size())) return -1;
  return static_cast<int>(names[i].size());
}

void TF_OperationGetAttrName(TF_Operation* oper, int i, char* output,
                             TF_Status* status) {
  if (oper == nullptr || output == nullptr) {
    Set(status, absl::InvalidArgumentError("NULL operation or output"));
    return;
  }
  const std::vector<std::string> names = stepflow::c_api::AttrNames(oper);
  if (i < 0 || i >= static_cast<int>(names.size())) {
    Set(status,
        absl::OutOfRangeError(absl::StrCat(
            "attribute index ", i, " out of range [0, ", names.size(), ")")));
    return;
  }
  std::memcpy(output, names[i].data(), names[i].size());
  Set(status, absl::OkStatus());
}

}  // extern "C"
