#include "runtime/kernels/training_op_helpers.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status UpdateVariables::Acquire(OpKernelContext* ctx,
                                      std::initializer_list<int> inputs,
                                      DataType dtype) {
  const std::string& node = ctx->op_kernel().name();
  std::vector<Var*> vars(inputs.size(), nullptr);
  std::vector<std::string> names(inputs.size());
  std::vector<absl::Mutex*> mus;
  size_t k = 0;
  for (int index : inputs) {
    if (ctx->input_is_ref(index)) {
      mus.push_back(ctx->input_ref_mutex(index));
      const NodeDef& def = ctx->op_kernel().def();
      names[k] = index < def.input_size() ? def.input(index)
                                          : absl::StrCat("input ", index);
    } else if (ctx->input_dtype(index) == DT_RESOURCE) {
      const ResourceHandleProto* handle = nullptr;
      absl::Status s = HandleFromInput(ctx, index, &handle);
      if (s.ok()) {
        s = LookupVar(ctx, *handle, &vars[k]);
        if (absl::IsFailedPrecondition(s)) {
          return absl::InternalError(
              absl::StrCat("Invalid variable reference: ", s.message()));
        }
      }
      if (!s.ok()) return s;
      held_.push_back(vars[k]);  // Unreffed by Release.
      names[k] = handle->name();
      if (vars[k]->dtype() != dtype) {
        const std::string got = DataTypeString(vars[k]->dtype());
        return absl::InvalidArgumentError(absl::StrCat(
            "Variable ", names[k], " holds ", got, " but ",
            FormatNodeName(node), " updates it as ", DataTypeString(dtype)));
      }
      mus.push_back(vars[k]->mu());
    } else {
      return absl::InternalError(
          absl::StrCat(FormatNodeName(node), " input ", index,
                       " must be a variable reference or a resource handle"));
    }
    ++k;
  }
  // A fixed global order (by address) avoids deadlock between updates
  // that share variables; it is never observable. The same variable may
  // be passed twice, so each mutex is locked once.
  std::sort(mus.begin(), mus.end());
  mus.erase(std::unique(mus.begin(), mus.end()), mus.end());
  for (absl::Mutex* mu : mus) mu->Lock();
  locked_ = std::move(mus);

  // Copy-on-write before taking any tensor (which would share buffers).
  for (Var* var : vars) {
    if (var != nullptr) PrepareToUpdateVariable(var);
  }
  k = 0;
  for (int index : inputs) {
    Tensor t = vars[k] != nullptr ? *vars[k]->tensor()
                                  : ctx->mutable_input(index, true);
    if (!t.IsInitialized()) {
      return AttachDef(absl::FailedPreconditionError(absl::StrCat(
                           "Attempting to use uninitialized value ", names[k])),
                       node);
    }
    if (t.dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Variable ", names[k], " holds ", DataTypeString(t.dtype()), " but ",
          FormatNodeName(node), " updates it as ", DataTypeString(dtype)));
    }
    tensors_.push_back(std::move(t));
    ++k;
  }
  return absl::OkStatus();
}

void UpdateVariables::Release() {
  tensors_.clear();
  for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) {
    (*it)->Unlock();
  }
  locked_.clear();
  for (Var* var : held_) var->Unref();
  held_.clear();
}

absl::Status RequireScalar(const OpKernel& op, const Tensor& t,
                           const char* what) {
  if (t.dims() == 0) return absl::OkStatus();
  return AttachDef(absl::InvalidArgumentError(absl::StrCat(
                       what, " is not a scalar: ", t.shape().DebugString())),
                   op.name());
}

absl::Status RequireSameShape(const OpKernel& op, const Tensor& var,
                              const Tensor& other, const char* other_name) {
  if (var.shape() == other.shape()) return absl::OkStatus();
  return AttachDef(
      absl::InvalidArgumentError(absl::StrCat(
          "var and ", other_name, " do not have the same shape",
          var.shape().DebugString(), " ", other.shape().DebugString())),
      op.name());
}

absl::Status ValidateSparseUpdate(const OpKernel& op, const Tensor& var,
                                  const Tensor& grad, const Tensor& indices,
                                  std::vector<int64_t>* rows) {
  if (var.dims() < 1) {
    return NodeInvalidArgument(op, "var must be at least 1 dimensional");
  }
  if (indices.dims() != 1) {
    return NodeInvalidArgument(op, "indices must be one-dimensional");
  }
  if (grad.dims() != var.dims()) {
    return NodeInvalidArgument(
        op, "var and grad must have the same rank: ", var.shape().DebugString(),
        " ", grad.shape().DebugString());
  }
  for (int d = 1; d < var.dims(); ++d) {
    if (var.dim_size(d) != grad.dim_size(d)) {
      return NodeInvalidArgument(op, "var and grad must match in dimension ",
                                 d);
    }
  }
  const int64_t n = indices.dim_size(0);
  if (grad.dim_size(0) != n) {
    return NodeInvalidArgument(
        op, "grad must be the same size as indices in the first dimension.");
  }
  absl::Status s = IndexTensorToVector(op, indices, rows);
  if (!s.ok()) return s;
  const int64_t limit = var.dim_size(0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = (*rows)[i];
    if (index < 0 || index >= limit) {
      return NodeInvalidArgument(op, "Index ", index, " at offset ", i,
                                 " in indices is out of range");
    }
  }
  return absl::OkStatus();
}

absl::Status RequireResourceVarExists(OpKernelContext* ctx) {
  const ResourceHandleProto* handle = nullptr;
  absl::Status s = HandleFromInput(ctx, 0, &handle);
  if (!s.ok()) return s;
  Var* var = nullptr;
  if (LookupVar(ctx, *handle, &var).ok()) {
    var->Unref();
    return absl::OkStatus();
  }
  return NodeError(absl::StatusCode::kNotFound, ctx->op_kernel(),
                   "Could not find resource: ", handle->container(), "/",
                   handle->name());
}

// Passes the updated ref through (the ResourceApply forms have no output).
void ForwardVarRef(OpKernelContext* ctx) {
  if (ctx->num_outputs() > 0) ctx->forward_ref_input_to_ref_output(0, 0);
}

}  // namespace stepflow
