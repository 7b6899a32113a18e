// N-d scatter updates of variables: ScatterNdUpdate/Add/Sub on ref
// variables (outputting the ref) and ResourceScatterNdUpdate/Add/Sub on
// resource variables. indices has shape [..., K]: each K-tuple picks a
// slice params[i0, ..., iK-1, ...], updated with the matching slice of
// updates (shape indices.shape[:-1] + params.shape[K:]).
//
// Updates run in order under the variable's lock (UpdateVariables). A
// tuple outside params' shape stops the update there with InvalidArgument
// "indices[1] = [4, 0] does not index into param shape [4,3]" (rows before
// it stay updated, as in TensorFlow), or is skipped when
// bad_indices_policy is "IGNORE".
// Errors: InvalidArgument naming the node for a scalar params, shapes that
// do not fit the rule above, and an unknown bad_indices_policy; NotFound
// for a resource variable that does not exist; the variable errors of
// UpdateVariables.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/training_op_helpers.h"

namespace stepflow {
namespace {

enum class NdKind { kUpdate, kAdd, kSub };

// TensorFlow's shape rule for params, indices and updates.
absl::Status ValidateNdShapes(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, const Tensor& updates) {
  if (params.dims() < 1) {
    return NodeInvalidArgument(ctx, "Output must be at least 1-D, got shape: ",
                               params.shape().DebugString());
  }
  if (params.NumElements() == 0 &&
      (indices.NumElements() > 0 || updates.NumElements() > 0)) {
    return NodeInvalidArgument(
        ctx, "Indices and updates specified for empty output shape");
  }
  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  const int batch_dim = indices.dims() > 1 ? indices.dims() - 1 : 1;
  if (slice_dim > params.dims()) {
    return NodeInvalidArgument(ctx, "Dimensions [", slice_dim,
                               ") of indices exceed the rank of params[shape=",
                               params.shape().DebugString(), "]");
  }
  auto prefix = [&] {
    return NodeInvalidArgument(
        ctx, "Dimensions [0,", batch_dim,
        ") of indices[shape=", indices.shape().DebugString(),
        "] must match dimensions [0,", batch_dim,
        ") of updates[shape=", updates.shape().DebugString(), "]");
  };
  auto suffix = [&] {
    return NodeInvalidArgument(
        ctx, "Dimensions [", slice_dim, ",", params.dims(),
        ") of input[shape=", params.shape().DebugString(),
        "] must match dimensions [", batch_dim, ",", updates.dims(),
        ") of updates[shape=", updates.shape().DebugString(), "]");
  };
  if (updates.dims() < batch_dim) return prefix();
  if (updates.dims() != batch_dim + params.dims() - slice_dim) return suffix();
  for (int d = 0; d < batch_dim && d < indices.dims(); ++d) {
    if (updates.dim_size(d) != indices.dim_size(d)) return prefix();
  }
  for (int d = 0; d < updates.dims() - batch_dim; ++d) {
    if (updates.dim_size(d + batch_dim) != params.dim_size(d + slice_dim)) {
      return suffix();
    }
  }
  return absl::OkStatus();
}

template <typename T, NdKind kKind>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES(
        ctx,
        policy.empty() || policy == "DEFAULT" || policy == "ERROR" ||
            policy == "IGNORE",
        NodeInvalidArgument(*this, "Invalid bad_indices_policy: ", policy));
    ignore_bad_ = policy == "IGNORE";
  }

  void Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(ctx, RequireResourceVarExists(ctx));
    }
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0}, DataTypeToEnum<T>::value));
      Tensor& params = vars.tensor(0);
      const Tensor& indices = ctx->input(1);
      const Tensor& updates = ctx->input(2);
      OP_REQUIRES_OK(ctx, ValidateNdShapes(ctx, params, indices, updates));
      std::vector<int64_t> idx;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, indices, &idx));
      const int k = indices.dims() > 1
                        ? static_cast<int>(indices.dim_size(indices.dims() - 1))
                        : 1;
      int64_t slice = 1;
      for (int d = k; d < params.dims(); ++d) slice *= params.dim_size(d);
      const int64_t n = k == 0 ? (updates.NumElements() > 0 ? 1 : 0)
                               : static_cast<int64_t>(idx.size()) / k;
      T* p = params.base<T>();
      const T* u = updates.base<const T>();
      for (int64_t loc = 0; loc < n; ++loc) {
        int64_t offset = 0;
        bool bad = false;
        for (int d = 0; d < k; ++d) {
          const int64_t i = idx[loc * k + d];
          bad |= i < 0 || i >= params.dim_size(d);
          offset = offset * params.dim_size(d) + i;
        }
        if (bad) {
          if (ignore_bad_) continue;
          std::vector<int64_t> tuple(idx.begin() + loc * k,
                                     idx.begin() + (loc + 1) * k);
          ctx->SetStatus(NodeInvalidArgument(
              ctx, "indices[", loc, "] = [", absl::StrJoin(tuple, ", "),
              "] does not index into param shape ",
              params.shape().DebugString()));
          break;
        }
        T* dst = p + offset * slice;
        const T* src = u + loc * slice;
        for (int64_t j = 0; j < slice; ++j) {
          if constexpr (kKind == NdKind::kUpdate) {
            dst[j] = src[j];
          } else if constexpr (kKind == NdKind::kAdd) {
            dst[j] = static_cast<T>(dst[j] + src[j]);
          } else {
            dst[j] = static_cast<T>(dst[j] - src[j]);
          }
        }
      }
      if (!ctx->status().ok()) return;
    }
    ForwardVarRef(ctx);
  }

 private:
  bool ignore_bad_ = false;
};

#define SF_REGISTER_ND(NAME, T, KIND)                        \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(NAME)                                             \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ScatterNdOp<T, NdKind::KIND>);                         \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Resource" NAME)                                  \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ScatterNdOp<T, NdKind::KIND>);
#define SF_REGISTER_ND_UPDATE(T) SF_REGISTER_ND("ScatterNdUpdate", T, kUpdate)
#define SF_REGISTER_ND_ARITH(T)           \
  SF_REGISTER_ND("ScatterNdAdd", T, kAdd) \
  SF_REGISTER_ND("ScatterNdSub", T, kSub)
SF_CALL_ALL_TYPES(SF_REGISTER_ND_UPDATE)
SF_CALL_NUMBER_TYPES(SF_REGISTER_ND_ARITH)
// The resource forms also add and subtract bools (TensorFlow's kernels).
REGISTER_KERNEL_BUILDER(Name("ResourceScatterNdAdd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<bool>("T")
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        ScatterNdOp<bool, NdKind::kAdd>);
REGISTER_KERNEL_BUILDER(Name("ResourceScatterNdSub")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<bool>("T")
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        ScatterNdOp<bool, NdKind::kSub>);
#undef SF_REGISTER_ND_ARITH
#undef SF_REGISTER_ND_UPDATE
#undef SF_REGISTER_ND

}  // namespace
}  // namespace stepflow
