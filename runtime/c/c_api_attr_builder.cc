// Kernel queries of c_api_experimental.h: TF_AttrBuilder (an op's attrs,
// checked against the kernels registered for a device type) and
// TF_GetNumberAttrForOpListInput.
//
// Errors: an unknown op is NotFound (from the op registry); no kernel for
// the attrs on the device type is NotFound naming the op, the device type
// and the attrs (KernelRegistry::FindKernel); an input index out of range
// is InvalidArgument; a non-list input has no number attr (NotFound).
//
// Thread-safety: a TF_AttrBuilder is not safe for concurrent use; the
// queries are.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "tensorflow/c/c_api_experimental.h"

using stepflow::c_api::Set;

struct TF_AttrBuilder {
  stepflow::NodeDef def;  // op and attrs; the name is fixed.
};

extern "C" {

TF_AttrBuilder* TF_NewAttrBuilder(const char* op_name) {
  auto* builder = new TF_AttrBuilder;
  builder->def.set_name("attr_builder");
  builder->def.set_op(op_name == nullptr ? "" : op_name);
  return builder;
}

void TF_DeleteAttrBuilder(TF_AttrBuilder* builder) { delete builder; }

void TF_AttrBuilderSetType(TF_AttrBuilder* builder, const char* attr_name,
                           TF_DataType value) {
  if (builder == nullptr || attr_name == nullptr) return;
  (*builder->def.mutable_attr())[attr_name].set_type(
      static_cast<stepflow::DataType>(value));
}

void TF_AttrBuilderSetTypeList(TF_AttrBuilder* builder, const char* attr_name,
                               const TF_DataType* values, int num_values) {
  if (builder == nullptr || attr_name == nullptr || num_values < 0 ||
      (num_values > 0 && values == nullptr)) {
    return;
  }
  stepflow::AttrValue value;
  auto* list = value.mutable_list();
  for (int i = 0; i < num_values; ++i) {
    list->add_type(static_cast<stepflow::DataType>(values[i]));
  }
  (*builder->def.mutable_attr())[attr_name] = std::move(value);
}

void TF_AttrBuilderCheckCanRunOnDevice(TF_AttrBuilder* builder,
                                       const char* device_type,
                                       TF_Status* status) {
  if (builder == nullptr || device_type == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_AttrBuilderCheckCanRunOnDevice: NULL argument"));
    return;
  }
  const stepflow::OpDef* op = nullptr;
  absl::Status s =
      stepflow::OpRegistry::Global()->LookUp(builder->def.op(), &op);
  if (!s.ok()) {
    Set(status, s);
    return;
  }
  stepflow::NodeDef def = builder->def;
  stepflow::AddDefaultsToNodeDef(*op, &def);
  const stepflow::KernelDef* kernel = nullptr;
  stepflow::KernelFactory factory;
  Set(status, stepflow::KernelRegistry::Global()->FindKernel(
                  device_type, def, &kernel, &factory));
}

const char* TF_GetNumberAttrForOpListInput(const char* op_name, int input_index,
                                           TF_Status* status) {
  const stepflow::OpDef* op = nullptr;
  absl::Status s = stepflow::OpRegistry::Global()->LookUp(
      op_name == nullptr ? "" : op_name, &op);
  if (!s.ok()) {
    Set(status, s);
    return nullptr;
  }
  if (input_index < 0 || input_index >= op->input_arg_size()) {
    Set(status, absl::InvalidArgumentError(absl::StrCat(
                    "Invalid input index ", input_index, " for op ", op->name(),
                    " with ", op->input_arg_size(), " inputs")));
    return nullptr;
  }
  // The OpDef lives in the registry for the process's lifetime.
  const std::string& attr = op->input_arg(input_index).number_attr();
  if (attr.empty()) {
    Set(status, absl::NotFoundError(
                    absl::StrCat("Input ", input_index, " of op ", op->name(),
                                 " is not a list of tensors of one type")));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return attr.c_str();
}

}  // extern "C"
