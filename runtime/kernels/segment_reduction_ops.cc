// Segment reductions over the rows of `data`.
//   Segment{Sum,Mean,Max,Min,Prod}(data, segment_ids): segment_ids is a
//     sorted vector over data's first dim; output row s reduces the rows
//     with id s; rows of ids that do not occur are 0.
//   UnsortedSegment{Sum,Max,Min,Prod}(data, segment_ids, num_segments):
//     segment_ids (any order, any shape prefixing data's) picks the output
//     row of each data slice; negative ids drop their slice; empty segments
//     hold the reduction's identity (0, 1, lowest, highest).
// Reductions run in T, element by element in input order. Errors
// (InvalidArgument naming the node): mismatched shapes, unsorted or
// negative sorted ids, an id >= num_segments, a negative or non-scalar
// num_segments.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/nd_index_util.h"

namespace stepflow {
namespace {

enum class Reduce { kSum, kMean, kProd, kMax, kMin };

template <typename T>
T Combine(Reduce r, const T& a, const T& b) {
  switch (r) {
    case Reduce::kSum:
    case Reduce::kMean:
      return static_cast<T>(static_cast<ArithType<T>>(a) +
                            static_cast<ArithType<T>>(b));
    case Reduce::kProd:
      if constexpr (std::is_same_v<T, uint16_t>) {
        return static_cast<T>(static_cast<uint32_t>(a) * b);
      } else {
        return static_cast<T>(static_cast<ArithType<T>>(a) *
                              static_cast<ArithType<T>>(b));
      }
    case Reduce::kMax:
      if constexpr (!IsComplex<T>::value) return b > a ? b : a;
      break;
    case Reduce::kMin:
      if constexpr (!IsComplex<T>::value) return b < a ? b : a;
      break;
  }
  return a;
}

template <typename T>
T Identity(Reduce r, bool sorted) {
  if (r == Reduce::kProd) return T(1);
  if constexpr (!IsComplex<T>::value) {
    if (!sorted && r == Reduce::kMax) return Eigen::NumTraits<T>::lowest();
    if (!sorted && r == Reduce::kMin) return Eigen::NumTraits<T>::highest();
  }
  return T(0);
}

Reduce ReduceOf(const std::string& op) {
  if (op.find("Mean") != std::string::npos) return Reduce::kMean;
  if (op.find("Prod") != std::string::npos) return Reduce::kProd;
  if (op.find("Max") != std::string::npos) return Reduce::kMax;
  if (op.find("Min") != std::string::npos) return Reduce::kMin;
  return Reduce::kSum;
}

template <typename T>
class SegmentReductionOp : public OpKernel {
 public:
  explicit SegmentReductionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        reduce_(ReduceOf(type_string())),
        sorted_(ctx->num_inputs() == 2) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    std::vector<int64_t> ids;
    int64_t rows = 0;
    TensorShape shape;
    if (sorted_) {
      OP_REQUIRES(ctx, data.dims() >= 1,
                  NodeInvalidArgument(ctx, "input must be at least rank 1"));
      OP_REQUIRES(ctx, ids_t.dims() == 1,
                  NodeInvalidArgument(ctx, "segment_ids should be a vector."));
      OP_REQUIRES(ctx, ids_t.NumElements() == data.dim_size(0),
                  NodeInvalidArgument(ctx,
                                      "segment_ids should be the same size as "
                                      "dimension 0 of input."));
      OP_REQUIRES_OK(ctx, ReadIndexValues(*this, ids_t, &ids));
      rows = ids.empty() ? 0 : ids.back() + 1;
      OP_REQUIRES(ctx, rows >= 0,
                  NodeInvalidArgument(ctx, "segment ids must be >= 0"));
      for (size_t i = 0; i < ids.size(); ++i) {
        OP_REQUIRES(ctx, i == 0 || ids[i - 1] <= ids[i],
                    NodeInvalidArgument(ctx, "segment ids are not increasing"));
        OP_REQUIRES(ctx, ids[i] >= 0 && ids[i] < rows,
                    NodeInvalidArgument(ctx, "Segment id ", ids[i],
                                        " out of range [0, ", rows,
                                        "), possibly because 'segment_ids' "
                                        "input is not sorted."));
      }
      std::vector<int64_t> dims = {rows};
      for (int d = 1; d < data.dims(); ++d) dims.push_back(data.dim_size(d));
      OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, data.dtype(), &shape));
    } else {
      const Tensor& num_t = ctx->input(2);
      OP_REQUIRES(ctx, num_t.dims() == 0,
                  NodeInvalidArgument(ctx,
                                      "num_segments should be a scalar, not "
                                      "shape ",
                                      num_t.shape().DebugString()));
      bool prefix = ids_t.dims() <= data.dims();
      for (int d = 0; prefix && d < ids_t.dims(); ++d) {
        prefix = ids_t.dim_size(d) == data.dim_size(d);
      }
      OP_REQUIRES(
          ctx, prefix,
          NodeInvalidArgument(ctx, "data.shape = ", data.shape().DebugString(),
                              " does not start with segment_ids.shape "
                              "= ",
                              ids_t.shape().DebugString()));
      std::vector<int64_t> num;
      OP_REQUIRES_OK(ctx, IndexTensorToVector(*this, num_t, &num));
      rows = num[0];
      OP_REQUIRES(ctx, rows >= 0,
                  NodeInvalidArgument(ctx, "Input num_segments == ", rows,
                                      " must not be negative."));
      OP_REQUIRES_OK(ctx, ReadIndexValues(*this, ids_t, &ids));
      for (size_t i = 0; i < ids.size(); ++i) {
        OP_REQUIRES(ctx, ids[i] < rows,
                    NodeInvalidArgument(ctx, "segment_ids[", i, "] = ", ids[i],
                                        " is out of range [0, ", rows, ")"));
      }
      std::vector<int64_t> dims = {rows};
      for (int d = ids_t.dims(); d < data.dims(); ++d) {
        dims.push_back(data.dim_size(d));
      }
      OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, data.dtype(), &shape));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    // From here on rows <= the output's element count.
    if (shape.num_elements() == 0) return;
    const int64_t inner = shape.num_elements() / rows;
    T* o = out->base<T>();
    const T* in = data.base<T>();
    const T identity = Identity<T>(reduce_, sorted_);
    std::fill(o, o + shape.num_elements(), identity);
    std::vector<int64_t> counts(rows, 0);
    for (size_t i = 0; i < ids.size(); ++i) {
      const int64_t s = ids[i];
      if (s < 0) continue;
      T* row = o + s * inner;
      const T* src = in + static_cast<int64_t>(i) * inner;
      if (counts[s]++ == 0 && sorted_) {
        std::copy(src, src + inner, row);
        continue;
      }
      for (int64_t j = 0; j < inner; ++j)
        row[j] = Combine(reduce_, row[j], src[j]);
    }
    if (reduce_ == Reduce::kMean) {
      for (int64_t s = 0; s < rows; ++s) {
        if (counts[s] == 0) continue;
        const T n = static_cast<T>(counts[s]);
        for (int64_t j = 0; j < inner; ++j) {
          o[s * inner + j] = static_cast<T>(o[s * inner + j] / n);
        }
      }
    }
  }

 private:
  const Reduce reduce_;
  const bool sorted_;
};

#define REGISTER_ONE(OP, T)                                                   \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SegmentReductionOp<T>);
#define REGISTER_ALL(T)                 \
  REGISTER_ONE("SegmentSum", T)         \
  REGISTER_ONE("SegmentMean", T)        \
  REGISTER_ONE("SegmentProd", T)        \
  REGISTER_ONE("UnsortedSegmentSum", T) \
  REGISTER_ONE("UnsortedSegmentProd", T)
#define REGISTER_ORDERED(T)             \
  REGISTER_ONE("SegmentMax", T)         \
  REGISTER_ONE("SegmentMin", T)         \
  REGISTER_ONE("UnsortedSegmentMax", T) \
  REGISTER_ONE("UnsortedSegmentMin", T)
SF_CALL_NUMBER_TYPES(REGISTER_ALL)
SF_CALL_REAL_NUMBER_TYPES(REGISTER_ORDERED)
#undef REGISTER_ORDERED
#undef REGISTER_ALL
#undef REGISTER_ONE

}  // namespace
}  // namespace stepflow
