#include "runtime/kernels/variable.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/refcount.h"

namespace stepflow {

std::string Var::DebugString() const {
  absl::ReaderMutexLock l(&mu_);
  if (!tensor_.IsInitialized()) {
    return absl::StrCat("Var<", DataTypeString(dtype_), " uninitialized>");
  }
  return absl::StrCat("Var<", DataTypeString(dtype_), " ",
                      tensor_.shape().DebugString(), ">");
}

uint64_t VarTypeHashCode() {
  // FNV-1a, 64 bit: stable across processes and builds.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char* p = kVarTypeName; *p != '\0'; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 0x100000001b3ULL;
  }
  return h;
}

absl::Status ValidateContainerName(const std::string& container) {
  auto alnum_dot = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '.';
  };
  bool ok = true;
  for (size_t i = 0; i < container.size() && ok; ++i) {
    const char c = container[i];
    ok = alnum_dot(c) || (i > 0 && (c == '_' || c == '-' || c == '/'));
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "container contains invalid characters: '", container, "'"));
  }
  return absl::OkStatus();
}

Tensor MakeVarHandleTensor(const std::string& device,
                           const std::string& container,
                           const std::string& name, DataType dtype,
                           const PartialTensorShape& shape) {
  Tensor t(DT_RESOURCE, TensorShape({}));
  ResourceHandleProto& h = t.scalar<ResourceHandleProto>();
  h.set_device(device);
  h.set_container(container);
  h.set_name(name);
  h.set_hash_code(VarTypeHashCode());
  h.set_maybe_type_name(kVarTypeName);
  ResourceHandleProto::DtypeAndShape* ds = h.add_dtypes_and_shapes();
  ds->set_dtype(dtype);
  TensorShapeProto* sp = ds->mutable_shape();
  if (shape.unknown_rank()) {
    sp->set_unknown_rank(true);
  } else {
    for (int d = 0; d < shape.dims(); ++d)
      sp->add_dim()->set_size(shape.dim_size(d));
  }
  return t;
}

absl::Status HandleFromInput(OpKernelContext* ctx, int index,
                             const ResourceHandleProto** handle) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1 || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input ", index, " of ", FormatNodeName(ctx->op_kernel().name()),
        " must be a scalar resource handle, got a ", DataTypeString(t.dtype()),
        " tensor of shape ", t.shape().DebugString()));
  }
  *handle = &t.scalar<ResourceHandleProto>();
  return absl::OkStatus();
}

absl::Status ValidateVarHandle(OpKernelContext* ctx,
                               const ResourceHandleProto& handle) {
  if (handle.device() != ctx->device()->name()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to access resource ", handle.name(), " located in device ",
        handle.device(), " from device ", ctx->device()->name(), " (",
        FormatNodeName(ctx->op_kernel().name()), ")"));
  }
  if (handle.hash_code() != VarTypeHashCode()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to access a handle's resource using the wrong type: ",
        FormatNodeName(ctx->op_kernel().name()),
        " expects a variable but "
        "the handle points to resource '",
        handle.name(), "' of type '", handle.maybe_type_name(), "'"));
  }
  return absl::OkStatus();
}

absl::Status LookupVar(OpKernelContext* ctx, const ResourceHandleProto& handle,
                       Var** var) {
  absl::Status s = ValidateVarHandle(ctx, handle);
  if (!s.ok()) return s;
  s = ctx->resource_manager()->Lookup<Var>(handle.container(), handle.name(),
                                           var);
  if (!s.ok()) {
    return AttachDef(
        absl::FailedPreconditionError(absl::StrCat(
            "Could not find variable ", handle.name(),
            ". It has not been initialized, or it was reset or destroyed "
            "(container=",
            handle.container(), ")")),
        ctx->op_kernel().name());
  }
  return absl::OkStatus();
}

absl::Status LookupOrCreateVar(OpKernelContext* ctx,
                               const ResourceHandleProto& handle,
                               DataType dtype, Var** var) {
  absl::Status s = ValidateVarHandle(ctx, handle);
  if (!s.ok()) return s;
  s = ctx->resource_manager()->LookupOrCreate<Var>(
      handle.container(), handle.name(), var, [dtype](Var** made) {
        *made = new Var(dtype);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if ((*var)->dtype() != dtype) {
    const DataType existing = (*var)->dtype();
    (*var)->Unref();
    *var = nullptr;
    return AttachDef(
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to assign variable with wrong dtype. Expected ",
            DataTypeString(existing), " got ", DataTypeString(dtype))),
        ctx->op_kernel().name());
  }
  return absl::OkStatus();
}

void PrepareToUpdateVariable(Var* var) {
  Tensor* t = var->tensor();
  if (t->IsInitialized() && !t->RefCountIsOne()) *t = t->DeepCopy();
}

VariableOp::VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  dtype_ = BaseType(ctx->output_types()[0]);
  OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
  OP_REQUIRES_OK(ctx, ValidateContainerName(container_));
}

void VariableOp::Compute(OpKernelContext* ctx) {
  ResourceMgr* rm = ctx->resource_manager();
  const std::string& container =
      container_.empty() ? rm->default_container() : container_;
  const std::string& var_name = shared_name_.empty() ? name() : shared_name_;
  LegacyVar* var = nullptr;
  const DataType dtype = dtype_;
  OP_REQUIRES_OK(ctx, rm->LookupOrCreate<LegacyVar>(
                          container, var_name, &var, [dtype](LegacyVar** made) {
                            *made = new LegacyVar(dtype);
                            return absl::OkStatus();
                          }));
  ScopedUnref unref(var);
  OP_REQUIRES(ctx, var->dtype() == dtype_,
              absl::InvalidArgumentError(absl::StrCat(
                  "Variable ", var_name, " in container ", container, " holds ",
                  DataTypeString(var->dtype()), " but ", FormatNodeName(name()),
                  " declares ", DataTypeString(dtype_))));
  // The ResourceMgr's reference keeps the variable alive for the ref.
  ctx->set_output_ref(0, var->mu(), var->tensor());
}

}  // namespace stepflow
