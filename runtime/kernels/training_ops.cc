// Optimizer update kernels: ApplyGradientDescent, ApplyMomentum, ApplyAdam
// and their ResourceApply* forms, for half, bfloat16, float, double,
// complex64 and complex128 (as in TensorFlow).
//
// The variables an op updates (var, accum, m, v) arrive as refs or as
// resource handles; UpdateVariables finds and locks them all for the
// update. Updates always hold the variables' mutexes (use_locking only
// chooses between locked and racy updates in TensorFlow; racy updates are
// not offered here). Resource variables are copied first if a read still
// shares their buffer.
//
// Errors: an uninitialized variable is FailedPrecondition naming it; a
// resource variable that does not exist is Internal ("Invalid variable
// reference", as TensorFlow reports it); a hyper-parameter that is not a
// scalar or a gradient whose shape differs from the variable's is
// InvalidArgument naming the node.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/variable.h"

namespace stepflow {
namespace {

// Locks the variables at some inputs of an update op and exposes their
// tensors (sharing the variables' buffers, so writes through them update
// the variables). Everything is released on destruction.
class UpdateVariables {
 public:
  UpdateVariables() = default;
  UpdateVariables(const UpdateVariables&) = delete;
  UpdateVariables& operator=(const UpdateVariables&) = delete;
  ~UpdateVariables() { Release(); }

  absl::Status Acquire(OpKernelContext* ctx, std::initializer_list<int> inputs,
                       DataType dtype) ABSL_NO_THREAD_SAFETY_ANALYSIS {
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
        return AttachDef(
            absl::FailedPreconditionError(absl::StrCat(
                "Attempting to use uninitialized value ", names[k])),
            node);
      }
      if (t.dtype() != dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Variable ", names[k], " holds ", DataTypeString(t.dtype()),
            " but ", FormatNodeName(node), " updates it as ",
            DataTypeString(dtype)));
      }
      tensors_.push_back(std::move(t));
      ++k;
    }
    return absl::OkStatus();
  }

  Tensor& tensor(int k) { return tensors_[k]; }

 private:
  void Release() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    tensors_.clear();
    for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) {
      (*it)->Unlock();
    }
    locked_.clear();
    for (Var* var : held_) var->Unref();
    held_.clear();
  }

  std::vector<Var*> held_;
  std::vector<absl::Mutex*> locked_;
  std::vector<Tensor> tensors_;
};

bool IsScalar(const Tensor& t) { return t.dims() == 0; }

absl::Status RequireScalar(const OpKernel& op, const Tensor& t,
                           const char* what) {
  if (IsScalar(t)) return absl::OkStatus();
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

// Passes the updated ref through (the ResourceApply forms have no output).
void ForwardVarRef(OpKernelContext* ctx) {
  if (ctx->num_outputs() > 0) ctx->forward_ref_input_to_ref_output(0, 0);
}

// var -= alpha * delta
template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      const Tensor& alpha = ctx->input(1);
      const Tensor& delta = ctx->input(2);
      OP_REQUIRES_OK(ctx, RequireScalar(*this, alpha, "alpha"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, delta, "delta"));
      auto v = var.flat<T>();
      auto d = delta.flat<T>();
      v -= d * d.constant(alpha.scalar<T>());
    }
    ForwardVarRef(ctx);
  }
};

// accum = accum * momentum + grad
// var -= lr * accum                                (plain)
// var -= lr * grad + lr * momentum * accum         (Nesterov)
template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx, vars.Acquire(ctx, {0, 1}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      Tensor& accum = vars.tensor(1);
      const Tensor& lr = ctx->input(2);
      const Tensor& grad = ctx->input(3);
      const Tensor& momentum = ctx->input(4);
      OP_REQUIRES_OK(ctx, RequireScalar(*this, lr, "lr"));
      OP_REQUIRES_OK(ctx, RequireScalar(*this, momentum, "momentum"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, accum, "accum"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
      auto v = var.flat<T>();
      auto a = accum.flat<T>();
      auto g = grad.flat<T>();
      const T l = lr.scalar<T>();
      const T m = momentum.scalar<T>();
      a = a * a.constant(m) + g;
      if (use_nesterov_) {
        v -= g * g.constant(l) + a * a.constant(m * l);
      } else {
        v -= a * a.constant(l);
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  bool use_nesterov_ = false;
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
// m += (grad - m) * (1 - beta1)
// v += (grad^2 - v) * (1 - beta2)
// var -= lr_t * m / (sqrt(v) + epsilon)                          (plain)
// var -= lr_t * (beta1 * m + (1 - beta1) * grad) / (sqrt(v) + epsilon)
//                                                                (Nesterov)
template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    {
      UpdateVariables vars;
      OP_REQUIRES_OK(ctx,
                     vars.Acquire(ctx, {0, 1, 2}, DataTypeToEnum<T>::value));
      Tensor& var = vars.tensor(0);
      Tensor& m_t = vars.tensor(1);
      Tensor& v_t = vars.tensor(2);
      static constexpr const char* kScalars[] = {
          "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
      T s[6];
      for (int i = 0; i < 6; ++i) {
        const Tensor& t = ctx->input(3 + i);
        OP_REQUIRES_OK(ctx, RequireScalar(*this, t, kScalars[i]));
        s[i] = t.scalar<T>();
      }
      const Tensor& grad = ctx->input(9);
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, m_t, "m"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, v_t, "v"));
      OP_REQUIRES_OK(ctx, RequireSameShape(*this, var, grad, "grad"));
      const T one(1);
      const T beta1_power = s[0], beta2_power = s[1], lr = s[2];
      const T beta1 = s[3], beta2 = s[4], epsilon = s[5];
      const T lr_t = static_cast<T>(
          lr * static_cast<T>(Eigen::numext::sqrt(one - beta2_power)) /
          (one - beta1_power));
      auto w = var.flat<T>();
      auto m = m_t.flat<T>();
      auto v = v_t.flat<T>();
      auto g = grad.flat<T>();
      m += (g - m) * m.constant(one - beta1);
      v += (g.square() - v) * v.constant(one - beta2);
      if (use_nesterov_) {
        w -= ((g * g.constant(one - beta1) + m * m.constant(beta1)) *
              g.constant(lr_t)) /
             (v.sqrt() + v.constant(epsilon));
      } else {
        w -= (m * m.constant(lr_t)) / (v.sqrt() + v.constant(epsilon));
      }
    }
    ForwardVarRef(ctx);
  }

 private:
  bool use_nesterov_ = false;
};

#define SF_REGISTER_TRAINING(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ApplyGradientDescentOp<T>);                                              \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyGradientDescent")                 \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T"),                         \
                          ApplyGradientDescentOp<T>);                          \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      ApplyMomentumOp<T>);                                                     \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyMomentumOp<T>);                                                     \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),             \
      ApplyAdamOp<T>);                                                         \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      ApplyAdamOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_TRAINING)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_TRAINING)
#undef SF_REGISTER_TRAINING

}  // namespace
}  // namespace stepflow
