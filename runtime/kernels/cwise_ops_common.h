// Element-wise kernel templates shared by the cwise_ops_*.cc files.
//
// A binary functor F<T> describes one op for one element type:
//   using In = ...;   // how input elements are viewed (ArithType<T> for ops
//                     // that may wrap, so signed overflow is defined)
//   using Out = ...;  // how output elements are viewed (same width as the
//                     // output dtype's C++ type)
//   using OutT = ...; // the output dtype's C++ type (T, or bool)
// and either
//   template <class X, class Y> static auto Expr(const X&, const Y&);
//       an Eigen array expression (vectorised), or
//   static Out Apply(In x, In y, bool* bad);
//       a scalar function that sets *bad on an error such as integer
//       division by zero; F::kError is then the message.
// F::kVectorized selects between them. Functors derive from FunctorBase.
// Unary functors are the same with one argument; a unary functor without
// kVectorized is vectorised (Expr only).
//
// BinaryOpKernel broadcasts like NumPy (bcast.h) and reports incompatible
// shapes as InvalidArgument naming the node. SimpleBinaryOpKernel does not
// broadcast: it is for gradient ops such as SqrtGrad(y, dy) or
// ReluGrad(gradients, features) whose inputs come from one forward op and
// so match (same element count, or same shape when kRequireSameShape);
// anything else is InvalidArgument naming the node. Outputs reuse an input
// buffer when the kernel holds its only reference.
#ifndef STEPFLOW_RUNTIME_KERNELS_CWISE_OPS_COMMON_H_
#define STEPFLOW_RUNTIME_KERNELS_CWISE_OPS_COMMON_H_

#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/planted_bug.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/bcast.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace cwise {

// The kernels below write every element of their output.
inline constexpr TensorFill kWritesAll = TensorFill::kUninitialized;

// Defaults every functor inherits.
struct FunctorBase {
  // Error message for scalar functors that can fail, and its code.
  static constexpr const char* kError = "";
  static constexpr absl::StatusCode kErrorCode =
      absl::StatusCode::kInvalidArgument;
  // What Equal-like ops return for incompatible shapes when the node's
  // incompatible_shape_error attr is false.
  static constexpr bool kIncompatibleValue = false;
};

// Whether T is a 16-bit float (computed in float by the functors below).
template <typename T>
constexpr bool kIsHalfLike =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

// A functor whose input and output elements are T.
template <typename T>
struct SameTypeFunctor : FunctorBase {
  using In = T;
  using Out = T;
  using OutT = T;
};

// A functor from T to bool (IsNan and the like).
template <typename T>
struct ToBoolFunctor : FunctorBase {
  using In = T;
  using Out = bool;
  using OutT = bool;
};

// Declares the unary functor `Name<T>` (deriving from Base<T>, one of the
// two above) computing the Eigen array method `method`: in float for the
// 16-bit floats, rounded back to T when the output is T.
#define SF_CWISE_ARRAY_METHOD_FN(Name, Base, method)                    \
  template <typename T>                                                 \
  struct Name : Base<T> {                                               \
    template <class X>                                                  \
    static auto Expr(const X& x) {                                      \
      if constexpr (kIsHalfLike<T>) {                                   \
        auto f = x.template cast<float>().method();                     \
        if constexpr (std::is_same<typename Base<T>::OutT, T>::value) { \
          return f.template cast<T>();                                  \
        } else {                                                        \
          return f;                                                     \
        }                                                               \
      } else {                                                          \
        return x.method();                                              \
      }                                                                 \
    }                                                                   \
  }

// The status a failing scalar functor F reports: F::kError with
// F::kErrorCode, naming the node.
template <typename F>
absl::Status FunctorError(OpKernelContext* ctx) {
  return NodeError(F::kErrorCode, ctx->op_kernel(), F::kError);
}

// Whether functor F computes with Expr (true unless F::kVectorized says
// otherwise).
template <typename F, typename = void>
struct IsVectorized : std::true_type {};
template <typename F>
struct IsVectorized<F, std::void_t<decltype(F::kVectorized)>>
    : std::integral_constant<bool, F::kVectorized> {};

template <typename T>
using ArrayOf = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using ArrayMap = Eigen::Map<ArrayOf<T>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const ArrayOf<T>>;

// Computes one row of n outputs; x/y advance by xs/ys (0 or 1) per element.
template <typename F>
void BinaryRow(const typename F::In* x, int64_t xs, const typename F::In* y,
               int64_t ys, typename F::Out* out, int64_t n, bool* bad) {
  using In = typename F::In;
  using Out = typename F::Out;
  if constexpr (F::kVectorized) {
    ArrayMap<Out> o(out, n);
    if (xs != 0 && ys != 0) {
      o = F::Expr(ConstArrayMap<In>(x, n), ConstArrayMap<In>(y, n));
    } else if (ys != 0) {
      o = F::Expr(ArrayOf<In>::Constant(n, x[0]), ConstArrayMap<In>(y, n));
    } else if (xs != 0) {
      o = F::Expr(ConstArrayMap<In>(x, n), ArrayOf<In>::Constant(n, y[0]));
    } else {
      o = F::Expr(ArrayOf<In>::Constant(n, x[0]),
                  ArrayOf<In>::Constant(n, y[0]));
    }
  } else {
    bool b = false;
    if (xs != 0 && ys != 0) {
      for (int64_t i = 0; i < n; ++i) out[i] = F::Apply(x[i], y[i], &b);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        out[i] = F::Apply(x[i * xs], y[i * ys], &b);
      }
    }
    if (b) *bad = true;
  }
}

// Binary element-wise op with broadcasting. T is the input dtype's C++ type.
template <typename T, template <typename> class Functor>
class BinaryOpKernel : public OpKernel {
 public:
  using F = Functor<T>;
  using In = typename F::In;
  using Out = typename F::Out;
  using OutT = typename F::OutT;
  static_assert(sizeof(In) == sizeof(T) || std::is_same<T, std::string>::value,
                "input view must have the element's width");
  static_assert(sizeof(Out) == sizeof(OutT), "output view width");

  explicit BinaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("incompatible_shape_error")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                       &incompatible_shape_error_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    // The planted bug "swapped_sub" (framework/planted_bug.h) computes
    // y - x for Sub, for the differential tests to catch.
    const bool swap =
        PlantedBugActive(PlantedBug::kSwappedSub) && def().op() == "Sub";
    const Tensor& x = ctx->input(swap ? 1 : 0);
    const Tensor& y = ctx->input(swap ? 0 : 1);
    BCast bcast(x.shape(), y.shape());
    if (!bcast.IsValid()) {
      if (!incompatible_shape_error_) {
        // Equal/NotEqual with incompatible_shape_error=false: a scalar
        // "not equal".
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
        out->scalar<bool>() = F::kIncompatibleValue;
        return;
      }
      ctx->SetStatus(
          NodeInvalidArgument(ctx, bcast.IncompatibleShapesMessage()));
      return;
    }
    const TensorShape& shape = bcast.output_shape();
    OP_REQUIRES_OK(
        ctx, CheckAllocationSize(*this, shape, DataTypeToEnum<OutT>::value));
    Tensor* out = nullptr;
    if constexpr (std::is_same<OutT, T>::value) {
      if (x.shape() == shape && !ctx->input_is_ref(0)) {
        OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                0, 0, shape, &out, kWritesAll));
      } else if (y.shape() == shape && !ctx->input_is_ref(1)) {
        OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                1, 0, shape, &out, kWritesAll));
      } else {
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out, kWritesAll));
      }
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out, kWritesAll));
    }
    if (shape.num_elements() == 0) return;
    const In* xp = reinterpret_cast<const In*>(x.base<T>());
    const In* yp = reinterpret_cast<const In*>(y.base<T>());
    Out* op = reinterpret_cast<Out*>(out->base<OutT>());
    bool bad = false;
    if (bcast.same_shape()) {
      BinaryRow<F>(xp, 1, yp, 1, op, shape.num_elements(), &bad);
    } else if (bcast.x_is_scalar()) {
      BinaryRow<F>(xp, 0, yp, 1, op, shape.num_elements(), &bad);
    } else if (bcast.y_is_scalar()) {
      BinaryRow<F>(xp, 1, yp, 0, op, shape.num_elements(), &bad);
    } else {
      bcast.ForEachRow([&](int64_t xo, int64_t xs, int64_t yo, int64_t ys,
                           int64_t oo, int64_t n) {
        BinaryRow<F>(xp + xo, xs, yp + yo, ys, op + oo, n, &bad);
      });
    }
    if constexpr (!F::kVectorized) {
      OP_REQUIRES(ctx, !bad, FunctorError<F>(ctx));
    }
  }

 private:
  bool incompatible_shape_error_ = true;
};

// Unary element-wise op: y = F(x), same shape.
template <typename T, template <typename> class Functor>
class UnaryOpKernel : public OpKernel {
 public:
  using F = Functor<T>;
  using In = typename F::In;
  using Out = typename F::Out;
  using OutT = typename F::OutT;

  explicit UnaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    if (std::is_same<OutT, T>::value && !ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              0, 0, x.shape(), &out, kWritesAll));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out, kWritesAll));
    }
    const int64_t n = x.NumElements();
    if (n == 0) return;
    const In* ip = reinterpret_cast<const In*>(x.base<T>());
    Out* op = reinterpret_cast<Out*>(out->base<OutT>());
    if constexpr (IsVectorized<F>::value) {
      ArrayMap<Out>(op, n) = F::Expr(ConstArrayMap<In>(ip, n));
    } else {
      bool bad = false;
      for (int64_t i = 0; i < n; ++i) op[i] = F::Apply(ip[i], &bad);
      OP_REQUIRES(ctx, !bad, FunctorError<F>(ctx));
    }
  }
};

// z = F(x, y) element-wise for inputs with equal element counts (or equal
// shapes when kRequireSameShape); z has x's shape. F provides In/Out/OutT
// and a vectorised Expr(x, y).
template <typename T, template <typename> class Functor, bool kRequireSameShape>
class SimpleBinaryOpKernel : public OpKernel {
 public:
  using F = Functor<T>;
  using In = typename F::In;
  using Out = typename F::Out;
  using OutT = typename F::OutT;

  explicit SimpleBinaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (kRequireSameShape) {
      OP_REQUIRES(ctx, x.shape() == y.shape(),
                  NodeInvalidArgument(ctx, type_string(),
                                      " inputs must have the same shape: ",
                                      x.shape().DebugString(), " vs. ",
                                      y.shape().DebugString()));
    } else {
      OP_REQUIRES(
          ctx, x.NumElements() == y.NumElements(),
          NodeInvalidArgument(ctx,
                              "The two arguments to a cwise op must have same "
                              "number of elements, got ",
                              x.NumElements(), " and ", y.NumElements()));
    }
    Tensor* out = nullptr;
    if (std::is_same<OutT, T>::value && !ctx->input_is_ref(0)) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              0, 0, x.shape(), &out, kWritesAll));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out, kWritesAll));
    }
    const int64_t n = x.NumElements();
    if (n == 0) return;
    ArrayMap<Out>(reinterpret_cast<Out*>(out->base<OutT>()), n) =
        F::Expr(ConstArrayMap<In>(reinterpret_cast<const In*>(x.base<T>()), n),
                ConstArrayMap<In>(reinterpret_cast<const In*>(y.base<T>()), n));
  }
};

}  // namespace cwise
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_CWISE_OPS_COMMON_H_
