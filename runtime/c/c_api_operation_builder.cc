// Building operations: TF_NewOperation, inputs, devices, colocation, every
// TF_SetAttr* and TF_FinishOperation.
//
// A description only collects NodeDef pieces. TF_FinishOperation checks the
// name, then imports a one-node GraphDef into the graph, so a built
// operation is validated exactly like an imported one (registered op,
// attrs against the OpDef, input count and types, no cycles) and the graph
// is unchanged on error.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/op.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/framework/types.h"
#include "runtime/graph/function_call_op.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace c_api {
namespace {

// Records the first misuse of a description.
void Fail(TF_OperationDescription* desc, absl::Status s) {
  if (desc->error.ok()) desc->error = std::move(s);
}

// The attr slot `attr_name` of `desc` (cleared), or null after recording a
// misuse for a NULL description or name.
AttrValue* Slot(TF_OperationDescription* desc, const char* attr_name) {
  if (desc == nullptr) return nullptr;
  if (attr_name == nullptr) {
    Fail(desc, absl::InvalidArgumentError(
                   absl::StrCat("NULL attribute name for operation '",
                                desc->node_def.name(), "'")));
    return nullptr;
  }
  AttrValue* v = &(*desc->node_def.mutable_attr())[attr_name];
  v->Clear();
  return v;
}

// False (and a recorded misuse) for a negative count or a NULL array with
// a positive count.
bool CheckList(TF_OperationDescription* desc, const char* attr_name,
               const void* values, int num_values) {
  if (num_values >= 0 && (num_values == 0 || values != nullptr)) return true;
  Fail(desc, absl::InvalidArgumentError(
                 absl::StrCat("invalid list for attribute '", attr_name,
                              "' of operation '", desc->node_def.name(), "'")));
  return false;
}

void ShapeFromDims(const int64_t* dims, int num_dims, TensorShapeProto* out) {
  if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) {
    out->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < num_dims; ++i) out->add_dim()->set_size(dims[i]);
}

absl::Status ProtoFromCTensor(const TF_Tensor* t, TensorProto* proto) {
  if (t == nullptr) return absl::InvalidArgumentError("tensor is NULL");
  Tensor tensor;
  absl::Status s = TensorFromC(*t, &tensor);
  if (!s.ok()) return s;
  s = CheckEncodable(tensor);
  if (!s.ok()) return s;
  TensorToProto(tensor, proto);
  return absl::OkStatus();
}

// Checks that `op` is an operation of desc's graph; records a misuse.
bool CheckSameGraph(TF_OperationDescription* desc, TF_Operation* op,
                    const char* what) {
  if (op == nullptr) {
    Fail(desc,
         absl::InvalidArgumentError(absl::StrCat(
             "NULL ", what, " for operation '", desc->node_def.name(), "'")));
    return false;
  }
  absl::MutexLock l(&desc->graph->mu);
  if (InGraph(*desc->graph, ToNode(op))) return true;
  Fail(desc, absl::InvalidArgumentError(
                 absl::StrCat(what, " for operation '", desc->node_def.name(),
                              "' is from a different graph")));
  return false;
}

// Sets `name` to `value` unless the caller set it (a conflicting value is
// then reported by validation as a type mismatch).
void SetIfAbsent(const std::string& name, const AttrValue& value,
                 NodeDef* def) {
  if (def->attr().count(name) == 0) (*def->mutable_attr())[name] = value;
}

// Infers the attrs TensorFlow's builder derives from the inputs: a list
// arg's length attr, the type attr of single or homogeneous list args, a
// list(type) attr of heterogeneous list args.
void InferAttrs(const OpDef& op_def,
                const std::vector<std::vector<TF_Output>>& groups,
                NodeDef* def) {
  const int n =
      std::min(static_cast<int>(groups.size()), op_def.input_arg_size());
  for (int i = 0; i < n; ++i) {
    const OpDef::ArgDef& arg = op_def.input_arg(i);
    std::vector<DataType> types;
    for (const TF_Output& in : groups[i]) {
      const Node* src = ToNode(in.oper);
      if (in.index < 0 || in.index >= src->num_outputs()) return;
      types.push_back(BaseType(src->output_type(in.index)));
    }
    AttrValue value;
    if (!arg.number_attr().empty()) {
      value.set_i(static_cast<int64_t>(types.size()));
      SetIfAbsent(arg.number_attr(), value, def);
    }
    if (!arg.type_list_attr().empty()) {
      for (DataType t : types) value.mutable_list()->add_type(t);
      SetIfAbsent(arg.type_list_attr(), value, def);
    } else if (!arg.type_attr().empty() && !types.empty()) {
      value.Clear();
      value.set_type(types[0]);
      SetIfAbsent(arg.type_attr(), value, def);
    }
  }
}

TF_Operation* Finish(TF_OperationDescription* desc, TF_Status* status) {
  if (!desc->error.ok()) {
    Set(status, desc->error);
    return nullptr;
  }
  NodeDef def = std::move(desc->node_def);
  for (const auto& group : desc->input_groups) {
    for (const TF_Output& in : group) {
      def.add_input(absl::StrCat(ToNode(in.oper)->name(), ":", in.index));
    }
  }
  for (const std::string& c : desc->control_inputs) def.add_input("^" + c);
  if (!desc->colocation.empty()) {
    AttrValue& cls = (*def.mutable_attr())["_class"];
    cls.clear_list();
    for (const std::string& loc : desc->colocation) {
      cls.mutable_list()->add_s(loc);
    }
  }
  TF_Graph* graph = desc->graph;
  absl::MutexLock l(&graph->mu);
  if (graph->graph.FindNodeByName(def.name()) != nullptr) {
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    "Duplicate node name in graph: '", def.name(), "'")));
    return nullptr;
  }
  const OpDef* op_def = graph->graph.op_registry()->LookUpOrNull(def.op());
  if (op_def == nullptr) {
    // A call of a function of the graph's library, by name.
    op_def = FunctionCallOpDef(graph->graph.library(), def.op());
  }
  if (op_def == nullptr) {
    // As TensorFlow's builder: InvalidArgument (an import says NotFound).
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    "Op type not registered '", def.op(),
                    "' in binary while building NodeDef '", def.name(), "'")));
    return nullptr;
  }
  InferAttrs(*op_def, desc->input_groups, &def);
  GraphDef gdef;
  *gdef.mutable_versions() = graph->graph.versions();
  const std::string name = def.name();
  *gdef.add_node() = std::move(def);
  GraphConstructorOptions opts;
  opts.allow_function_calls = true;
  absl::Status s = ImportGraphDef(opts, gdef, &graph->graph, &graph->refiner);
  if (!s.ok()) {
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return ToOperation(graph->graph.FindNodeByName(name));
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::CheckList;
using stepflow::c_api::Fail;
using stepflow::c_api::Set;
using stepflow::c_api::Slot;
using stepflow::c_api::ToNode;

extern "C" {

TF_OperationDescription* TF_NewOperation(TF_Graph* graph, const char* op_type,
                                         const char* oper_name) {
  if (graph == nullptr || op_type == nullptr || oper_name == nullptr) {
    return nullptr;
  }
  auto* desc = new TF_OperationDescription;
  desc->graph = graph;
  desc->node_def.set_name(oper_name);
  desc->node_def.set_op(op_type);
  return desc;
}

TF_OperationDescription* TF_NewOperationLocked(TF_Graph* graph,
                                               const char* op_type,
                                               const char* oper_name) {
  return TF_NewOperation(graph, op_type, oper_name);
}

void TF_SetDevice(TF_OperationDescription* desc, const char* device) {
  if (desc == nullptr) return;
  desc->node_def.set_device(device == nullptr ? "" : device);
}

void TF_AddInput(TF_OperationDescription* desc, TF_Output input) {
  TF_AddInputList(desc, &input, 1);
}

void TF_AddInputList(TF_OperationDescription* desc, const TF_Output* inputs,
                     int num_inputs) {
  if (desc == nullptr || !CheckList(desc, "(input list)", inputs, num_inputs)) {
    return;
  }
  std::vector<TF_Output> group;
  for (int i = 0; i < num_inputs; ++i) {
    const TF_Output& in = inputs[i];
    if (!stepflow::c_api::CheckSameGraph(desc, in.oper, "input")) return;
    if (in.index < 0) {
      Fail(desc, absl::OutOfRangeError(
                     absl::StrCat("negative output index ", in.index, " of '",
                                  ToNode(in.oper)->name(), "' used as input")));
      return;
    }
    group.push_back(in);
  }
  desc->input_groups.push_back(std::move(group));
}

void TF_AddControlInput(TF_OperationDescription* desc, TF_Operation* input) {
  if (desc == nullptr ||
      !stepflow::c_api::CheckSameGraph(desc, input, "control input")) {
    return;
  }
  desc->control_inputs.push_back(ToNode(input)->name());
}

void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op) {
  if (desc == nullptr ||
      !stepflow::c_api::CheckSameGraph(desc, op, "colocation target")) {
    return;
  }
  desc->colocation.insert("loc:@" + ToNode(op)->name());
}

void TF_SetAttrString(TF_OperationDescription* desc, const char* attr_name,
                      const void* value, size_t length) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr) return;
  if (value == nullptr && length > 0) {
    Fail(desc, absl::InvalidArgumentError("NULL string attribute value"));
    return;
  }
  v->set_s(value == nullptr
               ? std::string()
               : std::string(static_cast<const char*>(value), length));
}

void TF_SetAttrStringList(TF_OperationDescription* desc, const char* attr_name,
                          const void* const* values, const size_t* lengths,
                          int num_values) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, values, num_values)) return;
  if (num_values > 0 && lengths == nullptr) {
    Fail(desc, absl::InvalidArgumentError("NULL string lengths"));
    return;
  }
  auto* list = v->mutable_list();
  for (int i = 0; i < num_values; ++i) {
    const char* bytes = static_cast<const char*>(values[i]);
    list->add_s(bytes == nullptr ? std::string()
                                 : std::string(bytes, lengths[i]));
  }
}

void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name,
                   int64_t value) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr) v->set_i(value);
}

void TF_SetAttrIntList(TF_OperationDescription* desc, const char* attr_name,
                       const int64_t* values, int num_values) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, values, num_values)) return;
  auto* list = v->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_i(values[i]);
}

void TF_SetAttrFloat(TF_OperationDescription* desc, const char* attr_name,
                     float value) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr) v->set_f(value);
}

void TF_SetAttrFloatList(TF_OperationDescription* desc, const char* attr_name,
                         const float* values, int num_values) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, values, num_values)) return;
  auto* list = v->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_f(values[i]);
}

void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name,
                    unsigned char value) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr) v->set_b(value != 0);
}

void TF_SetAttrBoolList(TF_OperationDescription* desc, const char* attr_name,
                        const unsigned char* values, int num_values) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, values, num_values)) return;
  auto* list = v->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_b(values[i] != 0);
}

void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name,
                    TF_DataType value) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr) v->set_type(static_cast<stepflow::DataType>(value));
}

void TF_SetAttrTypeList(TF_OperationDescription* desc, const char* attr_name,
                        const TF_DataType* values, int num_values) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, values, num_values)) return;
  auto* list = v->mutable_list();
  for (int i = 0; i < num_values; ++i) {
    list->add_type(static_cast<stepflow::DataType>(values[i]));
  }
}

void TF_SetAttrPlaceholder(TF_OperationDescription* desc, const char* attr_name,
                           const char* placeholder) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr)
    v->set_placeholder(placeholder == nullptr ? "" : placeholder);
}

void TF_SetAttrFuncName(TF_OperationDescription* desc, const char* attr_name,
                        const char* value, size_t length) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr) return;
  v->mutable_func()->set_name(value == nullptr ? std::string()
                                               : std::string(value, length));
}

void TF_SetAttrShape(TF_OperationDescription* desc, const char* attr_name,
                     const int64_t* dims, int num_dims) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v != nullptr)
    stepflow::c_api::ShapeFromDims(dims, num_dims, v->mutable_shape());
}

void TF_SetAttrShapeList(TF_OperationDescription* desc, const char* attr_name,
                         const int64_t* const* dims, const int* num_dims,
                         int num_shapes) {
  stepflow::AttrValue* v = Slot(desc, attr_name);
  if (v == nullptr || !CheckList(desc, attr_name, dims, num_shapes)) return;
  if (num_shapes > 0 && num_dims == nullptr) {
    Fail(desc, absl::InvalidArgumentError("NULL num_dims for a shape list"));
    return;
  }
  auto* list = v->mutable_list();
  for (int i = 0; i < num_shapes; ++i) {
    stepflow::c_api::ShapeFromDims(dims[i], num_dims[i], list->add_shape());
  }
}

void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc,
                                const char* attr_name, const void* proto,
                                size_t proto_len, TF_Status* status) {
  stepflow::TensorShapeProto shape;
  if (desc == nullptr || attr_name == nullptr ||
      (proto == nullptr && proto_len > 0) ||
      !shape.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status, absl::InvalidArgumentError(
                    "Unparseable TensorShapeProto (or NULL argument)"));
    return;
  }
  *Slot(desc, attr_name)->mutable_shape() = std::move(shape);
  Set(status, absl::OkStatus());
}

void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc,
                                    const char* attr_name,
                                    const void* const* protos,
                                    const size_t* proto_lens, int num_shapes,
                                    TF_Status* status) {
  if (desc == nullptr || attr_name == nullptr || num_shapes < 0 ||
      (num_shapes > 0 && (protos == nullptr || proto_lens == nullptr))) {
    Set(status, absl::InvalidArgumentError(
                    "TF_SetAttrTensorShapeProtoList: bad arguments"));
    return;
  }
  stepflow::AttrValue value;
  auto* list = value.mutable_list();
  for (int i = 0; i < num_shapes; ++i) {
    if (!list->add_shape()->ParseFromArray(protos[i],
                                           static_cast<int>(proto_lens[i]))) {
      Set(status, absl::InvalidArgumentError(absl::StrCat(
                      "Unparseable TensorShapeProto at index ", i)));
      return;
    }
  }
  *Slot(desc, attr_name) = std::move(value);
  Set(status, absl::OkStatus());
}

void TF_SetAttrTensor(TF_OperationDescription* desc, const char* attr_name,
                      TF_Tensor* value, TF_Status* status) {
  if (desc == nullptr || attr_name == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_SetAttrTensor: bad arguments"));
    return;
  }
  stepflow::TensorProto proto;
  absl::Status s = stepflow::c_api::ProtoFromCTensor(value, &proto);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  *Slot(desc, attr_name)->mutable_tensor() = std::move(proto);
  Set(status, absl::OkStatus());
}

void TF_SetAttrTensorList(TF_OperationDescription* desc, const char* attr_name,
                          TF_Tensor* const* values, int num_values,
                          TF_Status* status) {
  if (desc == nullptr || attr_name == nullptr || num_values < 0 ||
      (num_values > 0 && values == nullptr)) {
    Set(status,
        absl::InvalidArgumentError("TF_SetAttrTensorList: bad arguments"));
    return;
  }
  stepflow::AttrValue value;
  auto* list = value.mutable_list();
  for (int i = 0; i < num_values; ++i) {
    absl::Status s =
        stepflow::c_api::ProtoFromCTensor(values[i], list->add_tensor());
    if (!s.ok()) {
      Set(status, std::move(s));
      return;
    }
  }
  *Slot(desc, attr_name) = std::move(value);
  Set(status, absl::OkStatus());
}

void TF_SetAttrValueProto(TF_OperationDescription* desc, const char* attr_name,
                          const void* proto, size_t proto_len,
                          TF_Status* status) {
  stepflow::AttrValue value;
  if (desc == nullptr || attr_name == nullptr ||
      (proto == nullptr && proto_len > 0) ||
      !value.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status, absl::InvalidArgumentError(
                    "Unparseable AttrValue proto (or NULL argument)"));
    return;
  }
  if (std::string(attr_name) == "_class") {
    // Colocation set this way joins the TF_ColocateWith set.
    for (const std::string& loc : value.list().s())
      desc->colocation.insert(loc);
    Set(status, absl::OkStatus());
    return;
  }
  *Slot(desc, attr_name) = std::move(value);
  Set(status, absl::OkStatus());
}

TF_Operation* TF_FinishOperation(TF_OperationDescription* desc,
                                 TF_Status* status) {
  if (desc == nullptr) {
    Set(status,
        absl::InvalidArgumentError("TF_FinishOperation: description is NULL"));
    return nullptr;
  }
  TF_Operation* op = stepflow::c_api::Finish(desc, status);
  delete desc;
  return op;
}

TF_Operation* TF_FinishOperationLocked(TF_OperationDescription* desc,
                                       TF_Status* status) {
  return TF_FinishOperation(desc, status);
}

}  // extern "C"
