// Shape arithmetic of broadcasting binary ops, on shapes given as int32 or
// int64 vectors:
//   BroadcastArgs(s0, s1) -> r0: the shape of the broadcast result.
//   BroadcastGradientArgs(s0, s1) -> (r0, r1): the output axes each
//     input's gradient must be summed over (ascending). An axis is listed
//     for an input whose (right-aligned, 1-padded) dim is 1 while the
//     output's is not, and for both inputs when both dims are 1 (as
//     TensorFlow does).
// Two dims broadcast when they are equal or one of them is 1 (a 0 dim
// broadcasts only against 1 or 0; the values are not otherwise checked,
// as TensorFlow does not). Errors (InvalidArgument naming the node):
// inputs not vectors, incompatible shapes ("Incompatible shapes: [2,3]
// vs. [4]").
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// One output axis: the two inputs' dims there, right-aligned, 1 where an
// input has fewer axes.
struct AlignedDims {
  int64_t dim[2];
};

std::vector<AlignedDims> AlignDims(const std::vector<int64_t> s[2]) {
  const size_t rank = std::max(s[0].size(), s[1].size());
  std::vector<AlignedDims> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    for (int i = 0; i < 2; ++i) {
      const size_t off = rank - s[i].size();
      dims[d].dim[i] = d < off ? 1 : s[i][d - off];
    }
  }
  return dims;
}

// Reads the two shape vectors s0 and s1 into s[0] and s[1], and their
// dims per output axis into `dims`.
absl::Status ReadShapeInputs(OpKernelContext* ctx, std::vector<int64_t> s[2],
                             std::vector<AlignedDims>* dims) {
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dims() != 1) {
      return NodeInvalidArgument(ctx, "In[", i, "] must be a vector.",
                                 t.shape().DebugString());
    }
    absl::Status st = IndexTensorToVector(ctx->op_kernel(), t, &s[i]);
    if (!st.ok()) return st;
  }
  *dims = AlignDims(s);
  return absl::OkStatus();
}

absl::Status IncompatibleShapes(OpKernelContext* ctx,
                                const std::vector<int64_t> s[2]) {
  return NodeInvalidArgument(ctx, "Incompatible shapes: [",
                             absl::StrJoin(s[0], ","), "] vs. [",
                             absl::StrJoin(s[1], ","), "]");
}

// Writes `values` as a vector to output `index` in the output's dtype
// (int32 or int64).
void SetVectorOutput(OpKernelContext* ctx, int index,
                     const std::vector<int64_t>& values) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(
      ctx,
      ctx->allocate_output(
          index, TensorShape({static_cast<int64_t>(values.size())}), &out));
  for (size_t k = 0; k < values.size(); ++k) {
    if (out->dtype() == DT_INT32) {
      out->base<int32_t>()[k] = static_cast<int32_t>(values[k]);
    } else {
      out->base<int64_t>()[k] = values[k];
    }
  }
}

// What both ops share: reading s0 and s1; each computes its outputs from
// the dims per output axis.
class BroadcastShapeOpBase : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) final {
    std::vector<int64_t> s[2];
    std::vector<AlignedDims> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInputs(ctx, s, &dims));
    ComputeFromDims(ctx, s, dims);
  }
  bool IsExpensive() const final { return false; }

 protected:
  virtual void ComputeFromDims(OpKernelContext* ctx,
                               const std::vector<int64_t> s[2],
                               const std::vector<AlignedDims>& dims) = 0;
};

class BroadcastArgsOp : public BroadcastShapeOpBase {
 public:
  using BroadcastShapeOpBase::BroadcastShapeOpBase;

 protected:
  void ComputeFromDims(OpKernelContext* ctx, const std::vector<int64_t> s[2],
                       const std::vector<AlignedDims>& dims) override {
    std::vector<int64_t> r(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t* dim = dims[d].dim;
      if (dim[0] == dim[1] || dim[1] == 1) {
        r[d] = dim[0];
      } else if (dim[0] == 1) {
        r[d] = dim[1];
      } else {
        ctx->SetStatus(IncompatibleShapes(ctx, s));
        return;
      }
    }
    SetVectorOutput(ctx, 0, r);
  }
};

class BroadcastGradientArgsOp : public BroadcastShapeOpBase {
 public:
  using BroadcastShapeOpBase::BroadcastShapeOpBase;

 protected:
  void ComputeFromDims(OpKernelContext* ctx, const std::vector<int64_t> s[2],
                       const std::vector<AlignedDims>& dims) override {
    std::vector<int64_t> r[2];
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
      const int64_t* dim = dims[d].dim;
      if (dim[0] == dim[1]) {
        if (dim[0] == 1) {
          r[0].push_back(d);
          r[1].push_back(d);
        }
      } else if (dim[0] == 1) {
        r[0].push_back(d);
      } else if (dim[1] == 1) {
        r[1].push_back(d);
      } else {
        ctx->SetStatus(IncompatibleShapes(ctx, s));
        return;
      }
    }
    for (int i = 0; i < 2; ++i) {
      SetVectorOutput(ctx, i, r[i]);
      if (!ctx->status().ok()) return;
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("BroadcastArgs").Device(DEVICE_CPU),
                        BroadcastArgsOp);
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs").Device(DEVICE_CPU),
                        BroadcastGradientArgsOp);

}  // namespace
}  // namespace stepflow
