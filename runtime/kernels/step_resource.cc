#include "runtime/kernels/step_resource.h"

#include <atomic>
#include <cstdint>

namespace stepflow {
namespace {

// The step's resource-name counter, kept in the step container.
class StepCounter : public ResourceBase {
 public:
  int64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  std::string DebugString() const override { return "StepCounter"; }

 private:
  std::atomic<int64_t> next_{0};
};

constexpr char kCounterName[] = "_step_resource_counter";

// FNV-1a, 64 bit: stable across processes and builds.
uint64_t StableHash(absl::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

absl::Status StepContainerName(OpKernelContext* ctx, std::string* name) {
  if (ctx->step_container() == nullptr) {
    return AttachDef(absl::InternalError("No step container."),
                     ctx->op_kernel().name());
  }
  *name = ctx->step_container()->name();
  return absl::OkStatus();
}

}  // namespace

absl::Status NewStepResourceName(OpKernelContext* ctx, absl::string_view base,
                                 std::string* name) {
  std::string container;
  absl::Status s = StepContainerName(ctx, &container);
  if (!s.ok()) return s;
  StepCounter* counter = nullptr;
  s = ctx->resource_manager()->LookupOrCreate<StepCounter>(
      container, kCounterName, &counter, [](StepCounter** made) {
        *made = new StepCounter;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  *name = absl::StrCat(base, "_", counter->Next());
  counter->Unref();
  return absl::OkStatus();
}

absl::Status MakeStepResourceHandle(OpKernelContext* ctx,
                                    const std::string& name,
                                    const char* type_name, Tensor* handle) {
  std::string container;
  absl::Status s = StepContainerName(ctx, &container);
  if (!s.ok()) return s;
  Tensor t(DT_RESOURCE, TensorShape({}));
  ResourceHandleProto& h = t.scalar<ResourceHandleProto>();
  h.set_device(ctx->device()->name());
  h.set_container(container);
  h.set_name(name);
  h.set_hash_code(StableHash(type_name));
  h.set_maybe_type_name(type_name);
  *handle = std::move(t);
  return absl::OkStatus();
}

absl::Status StepResourceHandle(OpKernelContext* ctx, int index,
                                const char* type_name,
                                const ResourceHandleProto** handle) {
  const Tensor& t = ctx->input(index);
  const std::string node = FormatNodeName(ctx->op_kernel().name());
  if (t.dtype() != DT_RESOURCE || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input ", index, " of ", node,
        " must be a scalar resource handle, got a ", DataTypeString(t.dtype()),
        " tensor of shape ", t.shape().DebugString()));
  }
  const ResourceHandleProto& h = t.scalar<ResourceHandleProto>();
  if (h.device() != ctx->device()->name()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to access resource ", h.name(), " located in device ",
        h.device(), " from device ", ctx->device()->name(), " (", node, ")"));
  }
  if (h.hash_code() != StableHash(type_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to access a handle's resource using the wrong type: ", node,
        " expects a ", type_name, " but the handle points to resource '",
        h.name(), "' of type '", h.maybe_type_name(), "'"));
  }
  *handle = &h;
  return absl::OkStatus();
}

}  // namespace stepflow
