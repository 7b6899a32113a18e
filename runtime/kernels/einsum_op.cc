// Einsum(inputs; equation): the tensor contraction einsum_equation.h
// describes, for one or two inputs.
//
// One input: each output element sums the input's elements (on the
// diagonal of repeated labels) over the labels the output drops.
// Two inputs: labels are sorted into batch (both inputs and the output),
// free (one input and the output), contracted (both inputs, not the
// output) and summed (one input only, not the output). Each input is
// gathered once into a dense [batch, free, contracted] (or [batch,
// contracted, free]) buffer, summing its own summed labels, and the batch
// of products runs through Gemm (gemm.h, as BatchMatMul does); the result
// is then laid out in the output's label order. Broadcast ellipsis
// dimensions of size 1 are repeated where the other input is larger.
// half/bfloat16 compute in float, integers wrap (unsigned arithmetic).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/einsum_equation.h"
#include "runtime/kernels/gemm.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Calls fn(offset) for every index of `dims` in row-major order, where
// offset = sum(index[d] * strides[d]).
template <typename Fn>
void ForEachOffset(const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& strides, Fn&& fn) {
  const size_t rank = dims.size();
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  while (true) {
    fn(offset);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++index[d] < dims[d]) {
        offset += strides[d];
        break;
      }
      offset -= (dims[d] - 1) * strides[d];
      index[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

// A gather: `out` (dense, row-major over keep dims) receives, for each kept
// index, the sum over the summed dims of src elements, converted to C.
struct Gather {
  std::vector<int64_t> keep_dims, keep_strides, sum_dims, sum_strides;

  void Add(int64_t dim, int64_t stride, bool keep) {
    (keep ? keep_dims : sum_dims).push_back(dim);
    (keep ? keep_strides : sum_strides).push_back(stride);
  }

  template <typename T, typename C>
  void Run(const T* src, C* out) const {
    if (sum_dims.empty()) return Copy(src, out);
    int64_t i = 0;
    ForEachOffset(keep_dims, keep_strides, [&](int64_t base) {
      C acc(0);
      ForEachOffset(sum_dims, sum_strides, [&](int64_t off) {
        acc += static_cast<C>(src[base + off]);
      });
      out[i++] = acc;
    });
  }

  // Run without summed dims: a strided copy, the innermost kept dim a run
  // at a time (a plain loop when it is contiguous).
  template <typename T, typename C>
  void Copy(const T* src, C* out) const {
    if (keep_dims.empty()) {
      out[0] = static_cast<C>(src[0]);
      return;
    }
    const int64_t inner = keep_dims.back();
    const int64_t step = keep_strides.back();
    const std::vector<int64_t> outer_dims(keep_dims.begin(),
                                          keep_dims.end() - 1);
    const std::vector<int64_t> outer_strides(keep_strides.begin(),
                                             keep_strides.end() - 1);
    C* dst = out;
    ForEachOffset(outer_dims, outer_strides, [&](int64_t base) {
      const T* row = src + base;
      if (step == 1) {
        for (int64_t j = 0; j < inner; ++j) dst[j] = static_cast<C>(row[j]);
      } else {
        for (int64_t j = 0; j < inner; ++j) {
          dst[j] = static_cast<C>(row[j * step]);
        }
      }
      dst += inner;
    });
  }
};

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  // Computation type: float for the 16-bit floats, unsigned wrap for ints.
  using C = std::conditional_t<std::is_integral<T>::value, ArithType<T>,
                               typename AccumType<T>::type>;

  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation));
    absl::Status s = ParseEinsumEquation(equation, &eq_);
    OP_REQUIRES(ctx, s.ok(), NodeInvalidArgument(*this, s.message()));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<TensorShape> shapes;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      shapes.push_back(ctx->input(i).shape());
    }
    EinsumPlan plan;
    absl::Status s = ResolveEinsum(eq_, shapes, &plan);
    OP_REQUIRES(ctx, s.ok(), NodeInvalidArgument(ctx, s.message()));
    OP_REQUIRES_OK(ctx, CheckAllocationSize(*this, plan.output_shape,
                                            DataTypeToEnum<T>::value));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape, &out));
    if (plan.output_shape.num_elements() == 0) return;
    // The result over the distinct output labels.
    const bool inflate = plan.unique_output.size() != plan.output.size();
    int64_t n_out = 1;
    for (int id : plan.unique_output) n_out *= plan.labels[id].dim;
    C* result = nullptr;
    Tensor result_buf;
    if (std::is_same<C, T>::value && !inflate) {
      result = reinterpret_cast<C*>(out->base<T>());
    } else {
      OP_REQUIRES_OK(ctx, Temp(ctx, n_out, &result_buf, &result));
    }
    if (shapes.size() == 1) {
      Unary(ctx->input(0), plan, result);
    } else {
      OP_REQUIRES_OK(ctx,
                     Binary(ctx, ctx->input(0), ctx->input(1), plan, result));
    }
    if (inflate) {
      Inflate(plan, result, out->base<T>());
    } else if (!std::is_same<C, T>::value) {
      T* o = out->base<T>();
      for (int64_t i = 0; i < n_out; ++i) o[i] = static_cast<T>(result[i]);
    }
  }

 private:
  // Output labels repeated: out is zero off the diagonal of each repeated
  // label and the result (over the distinct labels) on it.
  void Inflate(const EinsumPlan& plan, const C* result, T* out) {
    std::vector<int64_t> strides(plan.unique_output.size(), 1);
    for (int d = static_cast<int>(strides.size()) - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * plan.labels[plan.unique_output[d + 1]].dim;
    }
    const size_t rank = plan.output.size();
    std::vector<int64_t> index(rank, 0);
    const int64_t total = plan.output_shape.num_elements();
    for (int64_t i = 0; i < total; ++i) {
      int64_t rem = i;
      for (size_t d = rank; d-- > 0;) {
        index[d] = rem % plan.output_shape.dim_size(static_cast<int>(d));
        rem /= plan.output_shape.dim_size(static_cast<int>(d));
      }
      int64_t offset = 0;
      bool diagonal = true;
      for (size_t u = 0; u < plan.unique_output.size(); ++u) {
        int64_t at = -1;
        for (size_t d = 0; d < rank; ++d) {
          if (plan.output[d] != plan.unique_output[u]) continue;
          if (at >= 0 && index[d] != at) diagonal = false;
          at = index[d];
        }
        offset += at * strides[u];
      }
      out[i] = diagonal ? static_cast<T>(result[offset]) : T(0);
    }
  }

  // The output in output label order, summing the rest.
  void Unary(const Tensor& x, const EinsumPlan& plan, C* result) {
    Gather g;
    for (int id : plan.unique_output) {
      const EinsumLabel& l = plan.labels[id];
      g.Add(l.dim, l.input_dim[0] == l.dim ? l.input_stride[0] : 0, true);
    }
    for (const EinsumLabel& l : plan.labels) {
      if (!l.in_output && l.input_dim[0] >= 0) {
        g.Add(l.input_dim[0], l.input_stride[0], false);
      }
    }
    g.Run(x.base<T>(), result);
  }

  // A scratch buffer of n elements of C, through the allocator (so its size
  // is checked against the memory budget).
  absl::Status Temp(OpKernelContext* ctx, int64_t n, Tensor* t, C** data) {
    TensorShape shape({n});
    absl::Status s =
        CheckAllocationSize(*this, shape, DataTypeToEnum<C>::value);
    if (!s.ok()) return s;
    s = ctx->allocate_temp(DataTypeToEnum<C>::value, shape, t);
    if (!s.ok()) return s;
    *data = t->base<C>();
    return absl::OkStatus();
  }

  absl::Status Binary(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                      const EinsumPlan& plan, C* result) {
    // Label roles, in label id order (deterministic).
    std::vector<int> batch, free_x, free_y, contract;
    Gather gx, gy;
    for (size_t id = 0; id < plan.labels.size(); ++id) {
      const EinsumLabel& l = plan.labels[id];
      const int64_t dx = l.input_dim[0], dy = l.input_dim[1];
      const bool in_x = dx >= 0, in_y = dy >= 0;
      if (!in_x && !in_y) continue;
      if (l.in_output) {
        if (in_x && in_y) {
          batch.push_back(static_cast<int>(id));
        } else {
          (in_x ? free_x : free_y).push_back(static_cast<int>(id));
        }
      } else if (in_x && in_y && dx == dy) {
        contract.push_back(static_cast<int>(id));
      } else {
        // Summed on its own side: a label of one input only, or a
        // broadcast dimension where the other side has size 1.
        if (in_x) gx.Add(dx, l.input_stride[0], false);
        if (in_y) gy.Add(dy, l.input_stride[1], false);
      }
    }
    auto keep = [&](Gather* g, int input, const std::vector<int>& ids) {
      for (int id : ids) {
        const EinsumLabel& l = plan.labels[id];
        // A size-1 broadcast dimension repeats (stride 0).
        g->Add(l.dim, l.input_dim[input] == l.dim ? l.input_stride[input] : 0,
               true);
      }
    };
    keep(&gx, 0, batch);
    keep(&gx, 0, free_x);
    keep(&gx, 0, contract);
    keep(&gy, 1, batch);
    keep(&gy, 1, contract);
    keep(&gy, 1, free_y);
    auto dims_of = [&](const std::vector<int>& ids) {
      std::vector<int64_t> d;
      for (int id : ids) d.push_back(plan.labels[id].dim);
      return d;
    };
    const int64_t nb = Product(dims_of(batch), 0, batch.size());
    const int64_t m = Product(dims_of(free_x), 0, free_x.size());
    const int64_t n = Product(dims_of(free_y), 0, free_y.size());
    const int64_t k = Product(dims_of(contract), 0, contract.size());
    Tensor xt, yt, ot;
    C *xb = nullptr, *yb = nullptr, *ob = nullptr;
    absl::Status s = Temp(ctx, nb * m * k, &xt, &xb);
    if (s.ok()) s = Temp(ctx, nb * k * n, &yt, &yb);
    if (s.ok()) s = Temp(ctx, nb * m * n, &ot, &ob);
    if (!s.ok()) return s;
    gx.Run(x.base<T>(), xb);
    gy.Run(y.base<T>(), yb);
    for (int64_t i = 0; i < nb * m * n; ++i) ob[i] = C(0);
    if constexpr (std::is_same<T, half>::value ||
                  std::is_same<T, bfloat16>::value) {
      // TensorFlow contracts 16-bit floats with an accumulator of their
      // own width: each exact product is added and the sum rounded to T.
      for (int64_t b = 0; b < nb; ++b) {
        const C* xp = xb + b * m * k;
        const C* yp = yb + b * k * n;
        C* op = ob + b * m * n;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            T acc(0);
            for (int64_t q = 0; q < k; ++q) {
              acc = static_cast<T>(static_cast<C>(acc) +
                                   xp[i * k + q] * yp[q * n + j]);
            }
            op[i * n + j] = static_cast<C>(acc);
          }
        }
      }
    } else if (k > 0 && m > 0 && n > 0) {
      for (int64_t b = 0; b < nb; ++b) {
        Gemm(DenseGemmArgs(xb + b * m * k, k, GemmOp::kNoTrans, yb + b * k * n,
                           n, GemmOp::kNoTrans, ob + b * m * n, m, n, k));
      }
    }
    // ob is laid out [batch, free_x, free_y]: find each output label's
    // stride there.
    std::vector<int> order = batch;
    order.insert(order.end(), free_x.begin(), free_x.end());
    order.insert(order.end(), free_y.begin(), free_y.end());
    std::vector<int64_t> odims = dims_of(order);
    std::vector<int64_t> ostrides(order.size(), 1);
    for (int d = static_cast<int>(order.size()) - 2; d >= 0; --d) {
      ostrides[d] = ostrides[d + 1] * odims[d + 1];
    }
    Gather go;
    for (int id : plan.unique_output) {
      for (size_t j = 0; j < order.size(); ++j) {
        if (order[j] == id) go.Add(odims[j], ostrides[j], true);
      }
    }
    go.Run(ob, result);
    return absl::OkStatus();
  }

  EinsumEquation eq_;
};

#define SF_REGISTER_EINSUM(T) \
  REGISTER_KERNEL_BUILDER(    \
      Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp<T>);
SF_CALL_FLOAT_TYPES(SF_REGISTER_EINSUM)
SF_CALL_COMPLEX_TYPES(SF_REGISTER_EINSUM)
SF_REGISTER_EINSUM(int32_t)
SF_REGISTER_EINSUM(int64_t)
#undef SF_REGISTER_EINSUM

}  // namespace
}  // namespace stepflow
