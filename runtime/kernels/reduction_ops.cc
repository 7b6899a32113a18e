// Sum, Mean, Prod, Max, Min (numbers) and All, Any (bool) over the axes
// given by `reduction_indices` (int32/int64 of any rank, read in order;
// negative axes count from the end; a dimension named twice is
// InvalidArgument; keep_dims keeps reduced dims as 1).
// Accumulation: float for half/bfloat16; integers wrap like TensorFlow's
// (sum/product modulo 2^bits), except Mean, which divides the exact
// (64-bit) sum and truncates toward zero. Mean of an empty reduction is NaN
// for floats and 0 for integers; Max/Min of an empty reduction is -inf/+inf
// for floats and the type's lowest/highest value for integers (TensorFlow's
// identities); All/Any of an empty reduction are true/false.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reduction_helper.h"

namespace stepflow {
namespace {

enum class Reducer { kSum, kMean, kProd, kMax, kMin };

// Max and Min give NaN when any reduced element is NaN, as TensorFlow's
// reducers do.
template <typename A>
A NanMax(A a, A b) {
  if (a != a) return a;  // NOLINT: NaN test that also compiles for ints.
  if (b != b) return b;
  return a < b ? b : a;
}
template <typename A>
A NanMin(A a, A b) {
  if (a != a) return a;
  if (b != b) return b;
  return b < a ? b : a;
}

// Accumulator element type for T under reducer R.
template <typename T, Reducer R, typename = void>
struct Acc {
  using type = typename AccumType<T>::type;
};
template <typename T, Reducer R>
struct Acc<T, R,
           std::enable_if_t<std::is_integral<T>::value && R != Reducer::kMax &&
                            R != Reducer::kMin>> {
  // Sum/Prod: unsigned wrap-around at >= 32 bits, truncated at the end.
  // Mean: a wide sum of the right signedness.
  using wrap = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
  using wide = std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>;
  using type =
      std::conditional_t<R == Reducer::kMean && sizeof(T) < 8, wide, wrap>;
};

template <typename T, Reducer R>
class ReductionOp : public OpKernel {
 public:
  using A = typename Acc<T, R>::type;
  using TArray = Eigen::Array<T, Eigen::Dynamic, 1>;
  using AArray = Eigen::Array<A, Eigen::Dynamic, 1>;

  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes_t = ctx->input(1);
    // Any rank: the axes are its elements in order (as in TensorFlow).
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axes_t, &axes));
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, plan.Init(*this, input.shape(), axes, keep_dims_));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    const int64_t n_out = plan.output_elements();
    if (n_out == 0) return;

    AArray acc = AArray::Constant(n_out, Identity());
    const T* in = input.base<T>();
    const bool fold = plan.last_group_reduced();
    plan.ForEachChunk([&](int64_t in_off, int64_t out_off, int64_t len) {
      Eigen::Map<const TArray> chunk(in + in_off, len);
      if (fold) {
        if constexpr (R == Reducer::kProd) {
          acc[out_off] *= chunk.template cast<A>().prod();
        } else if constexpr (R == Reducer::kMax) {
          acc[out_off] = NanMax(acc[out_off],
                                chunk.template cast<A>()
                                    .template maxCoeff<Eigen::PropagateNaN>());
        } else if constexpr (R == Reducer::kMin) {
          acc[out_off] = NanMin(acc[out_off],
                                chunk.template cast<A>()
                                    .template minCoeff<Eigen::PropagateNaN>());
        } else {
          acc[out_off] += chunk.template cast<A>().sum();
        }
      } else {
        auto seg = acc.segment(out_off, len);
        if constexpr (R == Reducer::kProd) {
          seg *= chunk.template cast<A>();
        } else if constexpr (R == Reducer::kMax) {
          seg = seg.binaryExpr(
              chunk.template cast<A>(),
              Eigen::internal::scalar_max_op<A, A, Eigen::PropagateNaN>());
        } else if constexpr (R == Reducer::kMin) {
          seg = seg.binaryExpr(
              chunk.template cast<A>(),
              Eigen::internal::scalar_min_op<A, A, Eigen::PropagateNaN>());
        } else {
          seg += chunk.template cast<A>();
        }
      }
    });

    T* o = out->base<T>();
    const int64_t count = plan.reduce_count();
    if constexpr (R == Reducer::kMean) {
      if constexpr (std::is_integral<T>::value) {
        for (int64_t i = 0; i < n_out; ++i) {
          if (count == 0) {
            o[i] = T(0);
          } else if constexpr (std::is_signed<T>::value) {
            o[i] = static_cast<T>(static_cast<int64_t>(acc[i]) / count);
          } else {
            o[i] = static_cast<T>(acc[i] / static_cast<uint64_t>(count));
          }
        }
      } else {
        const A divisor = static_cast<A>(static_cast<double>(count));
        for (int64_t i = 0; i < n_out; ++i) {
          o[i] = static_cast<T>(acc[i] / divisor);
        }
      }
    } else {
      for (int64_t i = 0; i < n_out; ++i) o[i] = static_cast<T>(acc[i]);
    }
  }

 private:
  static A Identity() {
    if constexpr (R == Reducer::kProd) {
      return A(1);
    } else if constexpr (R == Reducer::kMax) {
      return std::numeric_limits<A>::has_infinity
                 ? -std::numeric_limits<A>::infinity()
                 : std::numeric_limits<A>::lowest();
    } else if constexpr (R == Reducer::kMin) {
      return std::numeric_limits<A>::has_infinity
                 ? std::numeric_limits<A>::infinity()
                 : std::numeric_limits<A>::max();
    } else {
      return A(0);
    }
  }

  bool keep_dims_ = false;
};

// All (kAll) or Any over bool inputs.
template <bool kAll>
class BoolReductionOp : public OpKernel {
 public:
  using BArray = Eigen::Array<bool, Eigen::Dynamic, 1>;

  explicit BoolReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes_t = ctx->input(1);
    // Any rank: the axes are its elements in order (as in TensorFlow).
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, axes_t, &axes));
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, plan.Init(*this, input.shape(), axes, keep_dims_));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape(), &out));
    const int64_t n_out = plan.output_elements();
    if (n_out == 0) return;
    Eigen::Map<BArray> acc(out->base<bool>(), n_out);
    acc.setConstant(kAll);
    const bool* in = input.base<bool>();
    const bool fold = plan.last_group_reduced();
    plan.ForEachChunk([&](int64_t in_off, int64_t out_off, int64_t len) {
      Eigen::Map<const BArray> chunk(in + in_off, len);
      if (fold) {
        if constexpr (kAll) {
          acc[out_off] = acc[out_off] && chunk.all();
        } else {
          acc[out_off] = acc[out_off] || chunk.any();
        }
      } else {
        auto seg = acc.segment(out_off, len);
        if constexpr (kAll) {
          seg = seg && chunk;
        } else {
          seg = seg || chunk;
        }
      }
    });
  }

 private:
  bool keep_dims_ = false;
};

REGISTER_KERNEL_BUILDER(Name("All").Device(DEVICE_CPU), BoolReductionOp<true>);
REGISTER_KERNEL_BUILDER(Name("Any").Device(DEVICE_CPU), BoolReductionOp<false>);

// (The op restricts Tidx to int32/int64; the kernel reads either.)
#define SF_REGISTER_REDUCTION(OP, R, T)                                       \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ReductionOp<T, R>);
#define SF_REGISTER_SUM(T) SF_REGISTER_REDUCTION("Sum", Reducer::kSum, T)
#define SF_REGISTER_MEAN(T) SF_REGISTER_REDUCTION("Mean", Reducer::kMean, T)
#define SF_REGISTER_PROD(T) SF_REGISTER_REDUCTION("Prod", Reducer::kProd, T)
SF_CALL_NUMBER_TYPES(SF_REGISTER_SUM)
SF_CALL_NUMBER_TYPES(SF_REGISTER_MEAN)
SF_CALL_NUMBER_TYPES(SF_REGISTER_PROD)
// Max/Min: ordered (real) types only, as in TensorFlow.
#define SF_REGISTER_MAX(T) SF_REGISTER_REDUCTION("Max", Reducer::kMax, T)
#define SF_REGISTER_MIN(T) SF_REGISTER_REDUCTION("Min", Reducer::kMin, T)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MAX)
SF_CALL_REAL_NUMBER_TYPES(SF_REGISTER_MIN)
#undef SF_REGISTER_MAX
#undef SF_REGISTER_MIN
#undef SF_REGISTER_SUM
#undef SF_REGISTER_MEAN
#undef SF_REGISTER_PROD
#undef SF_REGISTER_REDUCTION

}  // namespace
}  // namespace stepflow
