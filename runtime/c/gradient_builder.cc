#include "runtime/c/gradient_builder.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stepflow {
namespace c_api {

namespace {

absl::Status FromC(TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(TF_GetCode(s)),
                      TF_Message(s));
}

}  // namespace

GradBuilder::GradBuilder(TF_Graph* graph, std::string scope)
    : graph_(graph), scope_(std::move(scope)) {}

void GradBuilder::set_op_scope(const std::string& op_name) {
  op_scope_ = absl::StrCat(op_name, "_grad");
}

void GradBuilder::Fail(absl::Status s) {
  if (status_.ok()) status_ = std::move(s);
}

std::string GradBuilder::NewName(const std::string& type) {
  const std::string base =
      op_scope_.empty() ? absl::StrCat(scope_, "/", type)
                        : absl::StrCat(scope_, "/", op_scope_, "/", type);
  std::string name = base;
  for (int i = 1; TF_GraphOperationByName(graph_, name.c_str()) != nullptr;
       ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

TF_Operation* GradBuilder::AddOp(
    const std::string& type, const std::vector<std::vector<TF_Output>>& inputs,
    const Attrs& attrs) {
  if (!status_.ok()) return nullptr;
  for (const auto& group : inputs) {
    for (const TF_Output& in : group) {
      if (in.oper == nullptr) {
        Fail(absl::InternalError(absl::StrCat("gradient operation ", type,
                                              " in ", scope_, "/", op_scope_,
                                              " was given a missing input")));
        return nullptr;
      }
    }
  }
  const std::string name = NewName(type);
  TF_OperationDescription* desc =
      TF_NewOperation(graph_, type.c_str(), name.c_str());
  for (const auto& group : inputs) {
    if (group.size() == 1) {
      TF_AddInput(desc, group[0]);
    } else {
      TF_AddInputList(desc, group.data(), static_cast<int>(group.size()));
    }
  }
  if (attrs) attrs(desc);
  TF_Status* s = TF_NewStatus();
  TF_Operation* op = TF_FinishOperation(desc, s);
  Fail(FromC(s));
  TF_DeleteStatus(s);
  return status_.ok() ? op : nullptr;
}

TF_Output GradBuilder::Op(const std::string& type,
                          const std::vector<TF_Output>& inputs,
                          const Attrs& attrs) {
  std::vector<std::vector<TF_Output>> groups;
  for (const TF_Output& in : inputs) groups.push_back({in});
  return TF_Output{AddOp(type, groups, attrs), 0};
}

TF_Output GradBuilder::ConstInt32(const std::vector<int32_t>& values,
                                  bool scalar) {
  if (!status_.ok()) return TF_Output{nullptr, 0};
  int64_t dim = static_cast<int64_t>(values.size());
  TF_Tensor* t =
      TF_AllocateTensor(TF_INT32, scalar ? nullptr : &dim, scalar ? 0 : 1,
                        values.size() * sizeof(int32_t));
  int32_t* data = static_cast<int32_t*>(TF_TensorData(t));
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  TF_Status* s = TF_NewStatus();
  TF_Output out = Op("Const", {}, [&](TF_OperationDescription* d) {
    TF_SetAttrTensor(d, "value", t, s);
    TF_SetAttrType(d, "dtype", TF_INT32);
  });
  Fail(FromC(s));
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return out;
}

TF_Output GradBuilder::ScalarLike(float value, TF_DataType dtype) {
  if (!status_.ok()) return TF_Output{nullptr, 0};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, nullptr, 0, sizeof(float));
  *static_cast<float*>(TF_TensorData(t)) = value;
  TF_Status* s = TF_NewStatus();
  TF_Output out = Op("Const", {}, [&](TF_OperationDescription* d) {
    TF_SetAttrTensor(d, "value", t, s);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
  });
  Fail(FromC(s));
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return dtype == TF_FLOAT ? out : Cast(out, dtype);
}

TF_Output GradBuilder::Cast(TF_Output x, TF_DataType to) {
  return Op("Cast", {x}, [to](TF_OperationDescription* d) {
    TF_SetAttrType(d, "DstT", to);
  });
}

TF_Output GradBuilder::Sum(TF_Output x, TF_Output axes, bool keep_dims) {
  return Op("Sum", {x, axes}, [keep_dims](TF_OperationDescription* d) {
    TF_SetAttrBool(d, "keep_dims", keep_dims);
  });
}

void GradBuilder::ReduceBroadcast(TF_Output x, TF_Output y, TF_Output gx,
                                  TF_Output gy, TF_Output* dx, TF_Output* dy) {
  TF_Output sx = Shape(x);
  TF_Output sy = Shape(y);
  TF_Operation* args = AddOp("BroadcastGradientArgs", {{sx}, {sy}});
  if (args == nullptr) return;
  if (dx != nullptr) {
    *dx = Reshape(Sum(gx, TF_Output{args, 0}, false), sx);
  }
  if (dy != nullptr) {
    *dy = Reshape(Sum(gy, TF_Output{args, 1}, false), sy);
  }
}

TF_Output GradBuilder::ReducedShape(TF_Output input_shape, TF_Output axes) {
  if (Type(axes) != TF_INT32) axes = Cast(axes, TF_INT32);
  TF_Output rank = Op("Size", {input_shape});
  // Non-negative axes: (axes + rank) % rank.
  TF_Output pos = Op("FloorMod", {Add(axes, rank), rank});
  TF_Output range =
      Op("Range", {ConstInt32({0}, true), rank, ConstInt32({1}, true)});
  TF_Output ones = Op("Fill", {Shape(pos), ConstInt32({1}, true)});
  TF_Operation* stitch =
      AddOp("DynamicStitch", {{range, pos}, {input_shape, ones}});
  return TF_Output{stitch, 0};
}

TF_Output GradBuilder::AddN(const std::vector<TF_Output>& grads) {
  if (grads.size() == 1) return grads[0];
  return TF_Output{AddOp("AddN", {grads}), 0};
}

void CopyAttr(TF_Operation* from, const char* name,
              TF_OperationDescription* to) {
  TF_Status* s = TF_NewStatus();
  TF_Buffer* buf = TF_NewBuffer();
  TF_OperationGetAttrValueProto(from, name, buf, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_SetAttrValueProto(to, name, buf->data, buf->length, s);
  }
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(s);
}

bool BoolAttr(TF_Operation* op, const char* name, bool fallback) {
  TF_Status* s = TF_NewStatus();
  unsigned char v = 0;
  TF_OperationGetAttrBool(op, name, &v, s);
  bool ok = TF_GetCode(s) == TF_OK;
  TF_DeleteStatus(s);
  return ok ? v != 0 : fallback;
}

TF_DataType TypeAttr(TF_Operation* op, const char* name) {
  TF_Status* s = TF_NewStatus();
  TF_DataType t = TF_FLOAT;
  TF_OperationGetAttrType(op, name, &t, s);
  TF_DeleteStatus(s);
  return t;
}

}  // namespace c_api
}  // namespace stepflow
