// Scatter updates of variables: ScatterUpdate/Add/Sub/Mul/Div/Min/Max on
// ref variables (outputting the ref) and ResourceScatter* on resource
// variables. params[indices[i], ...] = op(params[indices[i], ...],
// updates[i, ...]); a scalar `updates` applies to every indexed row.
//
// Updates run in index order under the variable's lock (UpdateVariables,
// training_op_helpers.h); a repeated index updates its row once per
// occurrence. As in TensorFlow, an index outside params' first dimension
// stops the update there (rows before it stay updated) with
// InvalidArgument "indices[2] = 7 is not in [0, 5)".
// Errors: NotFound naming the node for a resource variable that does not
// exist; InvalidArgument naming the node when params is a scalar, when
// updates' shape is neither a scalar nor indices.shape + params.shape[1:],
// and for an integer division by zero (ScatterDiv); the variable errors
// of UpdateVariables.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/training_op_helpers.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

enum class ScatterKind { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

bool ValidScatterShapes(const Tensor& params, const Tensor& indices,
                        const Tensor& updates) {
  if (updates.dims() == 0) return true;
  if (updates.dims() != indices.dims() + params.dims() - 1) return false;
  for (int d = 0; d < indices.dims(); ++d) {
    if (updates.dim_size(d) != indices.dim_size(d)) return false;
  }
  for (int d = 1; d < params.dims(); ++d) {
    if (params.dim_size(d) != updates.dim_size(indices.dims() - 1 + d)) {
      return false;
    }
  }
  return true;
}

template <typename T, ScatterKind kKind>
class ScatterOp : public OpKernel {
 public:
  explicit ScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    if (!ctx->input_is_ref(0))
      OP_REQUIRES_OK(ctx, RequireResourceVarExists(ctx));
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0}, DataTypeToEnum<T>::value));
      Tensor& params = vars.tensor(0);
      const Tensor& indices = ctx->input(1);
      const Tensor& updates = ctx->input(2);
      OP_REQUIRES(ctx, params.dims() >= 1,
                  NodeInvalidArgument(ctx,
                                      "params must be at least 1-D, got "
                                      "shape ",
                                      params.shape().DebugString()));
      OP_REQUIRES(
          ctx, ValidScatterShapes(params, indices, updates),
          NodeInvalidArgument(
              ctx,
              "Must have updates.shape = indices.shape + params.shape[1:] or "
              "updates.shape = [], got updates.shape ",
              updates.shape().DebugString(), ", indices.shape ",
              indices.shape().DebugString(), ", params.shape ",
              params.shape().DebugString()));
      std::vector<int64_t> rows;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, indices, &rows));
      if constexpr (kKind == ScatterKind::kDiv && std::is_integral_v<T>) {
        auto u = updates.flat<T>();
        for (int64_t i = 0; i < u.size(); ++i) {
          OP_REQUIRES(ctx, u(i) != T(0),
                      NodeInvalidArgument(ctx, "Integer division by zero"));
        }
      }
      const int64_t limit = params.dim_size(0);
      auto p = params.shaped_to<T, 2>();
      const int64_t n = static_cast<int64_t>(rows.size());
      const bool scalar = updates.dims() == 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = rows[i];
        OP_REQUIRES(
            ctx, r >= 0 && r < limit,
            NodeInvalidArgument(ctx, "indices", IndexString(indices, i), " = ",
                                r, " is not in [0, ", limit, ")"));
        auto row = p.template chip<0>(r);
        if (scalar) {
          Apply(row, row.constant(updates.scalar<T>()));
        } else {
          // updates viewed as [n, row size].
          const int64_t width = p.dimension(1);
          Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>> urow(
              updates.template base<const T>() + i * width, width);
          Apply(row, urow);
        }
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  // "[1,0]": the multi-index of flat position `i` in `indices`.
  static std::string IndexString(const Tensor& indices, int64_t i) {
    std::vector<int64_t> idx(indices.dims());
    for (int d = indices.dims() - 1; d >= 0; --d) {
      idx[d] = i % indices.dim_size(d);
      i /= indices.dim_size(d);
    }
    std::string out = "[";
    for (size_t d = 0; d < idx.size(); ++d) {
      absl::StrAppend(&out, d == 0 ? "" : ",", idx[d]);
    }
    return out + "]";
  }

  template <typename P, typename U>
  static void Apply(P row, const U& u) {
    if constexpr (kKind == ScatterKind::kUpdate) {
      row = u;
    } else if constexpr (kKind == ScatterKind::kAdd) {
      row += u;
    } else if constexpr (kKind == ScatterKind::kSub) {
      row -= u;
    } else if constexpr (kKind == ScatterKind::kMul) {
      row *= u;
    } else if constexpr (kKind == ScatterKind::kDiv) {
      row /= u;
    } else if constexpr (kKind == ScatterKind::kMin) {
      row = row.cwiseMin(u);
    } else {
      row = row.cwiseMax(u);
    }
  }
};

#define SF_REGISTER_SCATTER(NAME, T, KIND)                   \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(NAME)                                             \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ScatterOp<T, ScatterKind::KIND>);                      \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Resource" NAME)                                  \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("dtype")                        \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      ScatterOp<T, ScatterKind::KIND>);

#define SF_REGISTER_UPDATE(T) SF_REGISTER_SCATTER("ScatterUpdate", T, kUpdate)
#define SF_REGISTER_ARITH(T)                 \
  SF_REGISTER_SCATTER("ScatterAdd", T, kAdd) \
  SF_REGISTER_SCATTER("ScatterSub", T, kSub) \
  SF_REGISTER_SCATTER("ScatterMul", T, kMul) \
  SF_REGISTER_SCATTER("ScatterDiv", T, kDiv)
#define SF_REGISTER_MINMAX(T)                \
  SF_REGISTER_SCATTER("ScatterMin", T, kMin) \
  SF_REGISTER_SCATTER("ScatterMax", T, kMax)
SF_CALL_ALL_TYPES(SF_REGISTER_UPDATE)
SF_CALL_NUMBER_TYPES(SF_REGISTER_ARITH)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MINMAX)
#undef SF_REGISTER_MINMAX
#undef SF_REGISTER_ARITH
#undef SF_REGISTER_UPDATE
#undef SF_REGISTER_SCATTER

}  // namespace
}  // namespace stepflow
