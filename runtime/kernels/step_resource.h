// Per-step resources (TensorArrays, stacks): resources a kernel creates in
// its step's container (ScopedStepContainer, "__per_step_<id>"), which the
// ResourceMgr drops when the step ends, and the DT_RESOURCE handles that
// name them.
//
// Names: NewStepResourceName appends a per-step counter to the op's base
// name, so two resources made by one node in one step (a loop body) stay
// apart; the counter lives in the step container too, so names depend only
// on the order the step's kernels run in, never on other steps.
// Handles carry the device, the step container, the name and a stable hash
// of the resource's type name; lookups check the device and the type.
//
// Errors: a kernel run without a step container is Internal ("No step
// container"); a handle of another device or type is InvalidArgument; a
// resource that does not exist (another step's, or never created) is
// NotFound, all naming the node.
#ifndef STEPFLOW_RUNTIME_KERNELS_STEP_RESOURCE_H_
#define STEPFLOW_RUNTIME_KERNELS_STEP_RESOURCE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "proto/resource_handle.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// "<base>_<n>" with n counting the resources this step named so far.
absl::Status NewStepResourceName(OpKernelContext* ctx, absl::string_view base,
                                 std::string* name);

// A scalar DT_RESOURCE tensor naming `name` in this step's container.
absl::Status MakeStepResourceHandle(OpKernelContext* ctx,
                                    const std::string& name,
                                    const char* type_name, Tensor* handle);

// Adds `resource` (taking the caller's reference) to the step container
// under `name` and sets *handle to a scalar DT_RESOURCE tensor naming it.
template <typename T>
absl::Status CreateStepResource(OpKernelContext* ctx, const std::string& name,
                                const char* type_name, T* resource,
                                Tensor* handle) {
  absl::Status s = MakeStepResourceHandle(ctx, name, type_name, handle);
  if (!s.ok()) {
    resource->Unref();
    return s;
  }
  const std::string& container =
      handle->scalar<ResourceHandleProto>().container();
  s = ctx->resource_manager()->Create<T>(container, name, resource);
  if (!s.ok()) return AttachDef(s, ctx->op_kernel().name());
  return absl::OkStatus();
}

// The handle at input `index` after checking it is a scalar DT_RESOURCE of
// `type_name` on this device.
absl::Status StepResourceHandle(OpKernelContext* ctx, int index,
                                const char* type_name,
                                const ResourceHandleProto** handle);

// The resource named by the handle at input `index` (a new reference).
template <typename T>
absl::Status LookupStepResource(OpKernelContext* ctx, int index,
                                const char* type_name, T** resource) {
  const ResourceHandleProto* handle = nullptr;
  absl::Status s = StepResourceHandle(ctx, index, type_name, &handle);
  if (!s.ok()) return s;
  s = ctx->resource_manager()->Lookup<T>(handle->container(), handle->name(),
                                         resource);
  if (!s.ok()) return AttachDef(s, ctx->op_kernel().name());
  return absl::OkStatus();
}

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_STEP_RESOURCE_H_
