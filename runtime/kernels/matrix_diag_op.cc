// The batched matrix diagonal ops, over the innermost [rows, cols]
// matrices, with diagonal d = col - row in the band k = [lower, upper]:
//   MatrixDiagPart[V2,V3](input, k, padding_value): the band's diagonals,
//     one row per d from upper down to lower (the row dim is dropped for a
//     single diagonal), each padded to the longest one's length.
//   MatrixDiag[V2,V3](diagonal, k, num_rows, num_cols, padding_value): a
//     matrix holding those diagonals and padding_value elsewhere; -1 sizes
//     are inferred (square when both are).
//   MatrixSetDiag[V2,V3](input, diagonal, k): input with the band replaced.
// V3's `align` says where a shorter diagonal sits in its padded row
// ("RIGHT_LEFT": superdiagonals right-aligned, subdiagonals left-aligned);
// V2 aligns LEFT_LEFT; V1 has k = 0 and zero padding. Errors
// (InvalidArgument naming the node): inputs of too low rank, k not a
// scalar or vector of one or two elements, lower > upper, a band outside
// the matrix, shapes that do not match the band, sizes too small.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

struct Band {
  int64_t lower = 0, upper = 0;
  bool left_super = true, left_sub = true;
  int64_t rows = 0, cols = 0, max_len = 0;

  int64_t Length(int64_t d) const {
    return std::min(rows + std::min<int64_t>(0, d),
                    cols - std::max<int64_t>(0, d));
  }
  // Where diagonal d's first element sits in its padded row.
  int64_t Offset(int64_t d) const {
    const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
    return left ? 0 : max_len - Length(d);
  }
  int64_t Count() const { return upper - lower + 1; }
};

class MatrixDiagOpBase : public OpKernel {
 public:
  explicit MatrixDiagOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = type_string();
    version_ = op.back() == '3' ? 3 : op.back() == '2' ? 2 : 1;
    std::string align = "LEFT_LEFT";
    if (version_ == 3) OP_REQUIRES_OK(ctx, ctx->GetAttr("align", &align));
    band_.left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
    band_.left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  }

 protected:
  // Reads k (input `index`, V2/V3 only) into band->lower/upper.
  absl::Status ReadK(OpKernelContext* ctx, int index, Band* band) const {
    band->lower = band->upper = 0;
    if (version_ == 1) return absl::OkStatus();
    const Tensor& k = ctx->input(index);
    if (k.dims() > 1) {
      return NodeInvalidArgument(*this,
                                 "diag_index must be a scalar or vector, "
                                 "received shape: ",
                                 k.shape().DebugString());
    }
    if (k.NumElements() < 1 || k.NumElements() > 2) {
      return NodeInvalidArgument(*this,
                                 "diag_index must have only one or two "
                                 "elements, received ",
                                 k.NumElements(), " elements.");
    }
    band->lower = k.base<int32_t>()[0];
    band->upper = k.NumElements() > 1 ? k.base<int32_t>()[1] : band->lower;
    if (band->lower > band->upper) {
      return NodeInvalidArgument(*this,
                                 "lower_diag_index must not be larger than "
                                 "upper_diag_index: ",
                                 band->lower, " > ", band->upper);
    }
    return absl::OkStatus();
  }

  // Checks the band against an existing [rows, cols] matrix.
  absl::Status CheckInMatrix(const Band& band) const {
    for (int64_t d : {band.lower, band.upper}) {
      if (!((-band.rows < d && d < band.cols) || d == 0)) {
        return NodeInvalidArgument(*this, "diag_index is out of bound: ", d);
      }
    }
    return absl::OkStatus();
  }

  // Fits `band` (k already read) to the innermost matrices of `input` and
  // checks it lies inside them; `diag_shape`: the shape of their diagonals
  // (the batch, then the band's count if more than one, then max_len).
  absl::Status FitToMatrix(const Tensor& input, Band* band,
                           TensorShape* diag_shape) const {
    const int rank = input.dims();
    if (rank < 2) {
      return NodeInvalidArgument(*this,
                                 "input must be at least 2-dim, received "
                                 "shape: ",
                                 input.shape().DebugString());
    }
    band->rows = input.dim_size(rank - 2);
    band->cols = input.dim_size(rank - 1);
    absl::Status s = CheckInMatrix(*band);
    if (!s.ok()) return s;
    band->max_len = std::min(band->rows + std::min<int64_t>(band->upper, 0),
                             band->cols - std::max<int64_t>(band->lower, 0));
    *diag_shape = input.shape();
    diag_shape->RemoveDim(rank - 1);
    diag_shape->RemoveDim(rank - 2);
    if (band->Count() > 1) diag_shape->AddDim(band->Count());
    diag_shape->AddDim(std::max<int64_t>(band->max_len, 0));
    return absl::OkStatus();
  }

  absl::Status CheckScalar(const Tensor& t, const char* what) const {
    if (t.dims() == 0) return absl::OkStatus();
    return NodeInvalidArgument(
        *this, what,
        " must be a scalar, received shape: ", t.shape().DebugString());
  }

  int version_ = 1;
  Band band_;
};

#define SF_DIAG_DISPATCH(ctx, dtype, ...)                                     \
  do {                                                                        \
    const bool ok_ =                                                          \
        DispatchByElementSize(dtype, [&](auto tag) { __VA_ARGS__; });         \
    OP_REQUIRES(ctx, ok_,                                                     \
                NodeInvalidArgument(ctx, type_string(), " does not support ", \
                                    DataTypeString(dtype)));                  \
  } while (0)

class MatrixDiagPartOp : public MatrixDiagOpBase {
 public:
  using MatrixDiagOpBase::MatrixDiagOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Band band = band_;
    OP_REQUIRES_OK(ctx, ReadK(ctx, 1, &band));
    if (version_ > 1) {
      OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(2), "padding_value"));
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, FitToMatrix(input, &band, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const int64_t batches = shape.num_elements() / band.Count() / band.max_len;
    SF_DIAG_DISPATCH(ctx, input.dtype(), {
      using U = decltype(tag);
      const U pad = version_ > 1 ? ctx->input(2).base<U>()[0] : U{};
      const U* in = input.base<U>();
      U* o = out->base<U>();
      for (int64_t b = 0; b < batches; ++b) {
        const U* m = in + b * band.rows * band.cols;
        for (int64_t d = band.upper; d >= band.lower; --d) {
          const int64_t len = band.Length(d), off = band.Offset(d);
          for (int64_t j = 0; j < band.max_len; ++j, ++o) {
            const int64_t t = j - off;
            *o = t >= 0 && t < len
                     ? m[(t + std::max<int64_t>(0, -d)) * band.cols + t +
                         std::max<int64_t>(0, d)]
                     : pad;
          }
        }
      }
    });
  }
};

class MatrixDiagOp : public MatrixDiagOpBase {
 public:
  using MatrixDiagOpBase::MatrixDiagOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diag = ctx->input(0);
    Band band = band_;
    OP_REQUIRES_OK(ctx, ReadK(ctx, 1, &band));
    int64_t rows = -1, cols = -1;
    if (version_ > 1) {
      OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(2), "num_rows"));
      OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(3), "num_cols"));
      OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(4), "padding_value"));
      rows = ctx->input(2).base<int32_t>()[0];
      cols = ctx->input(3).base<int32_t>()[0];
    }
    const int rank = diag.dims();
    OP_REQUIRES(ctx, rank >= 1,
                NodeInvalidArgument(ctx,
                                    "diagonal must be at least 1-dim, "
                                    "received shape: ",
                                    diag.shape().DebugString()));
    OP_REQUIRES(ctx,
                band.Count() == 1 ||
                    (rank >= 2 && diag.dim_size(rank - 2) == band.Count()),
                NodeInvalidArgument(ctx,
                                    "The number of diagonals provided in the "
                                    "input does not match the "
                                    "lower_diag_index and upper_diag_index "
                                    "range."));
    band.max_len = diag.dim_size(rank - 1);
    const int64_t min_rows = band.max_len - std::min<int64_t>(band.upper, 0);
    const int64_t min_cols = band.max_len + std::max<int64_t>(band.lower, 0);
    OP_REQUIRES(ctx, rows == -1 || rows >= min_rows,
                NodeInvalidArgument(ctx, "The number of rows is too small."));
    OP_REQUIRES(
        ctx, cols == -1 || cols >= min_cols,
        NodeInvalidArgument(ctx, "The number of columns is too small."));
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    OP_REQUIRES(ctx, rows == min_rows || cols == min_cols,
                NodeInvalidArgument(ctx,
                                    "The number of rows or columns is not "
                                    "consistent with the specified d_lower, "
                                    "d_upper, and diagonal."));
    band.rows = rows;
    band.cols = cols;
    std::vector<int64_t> dims(
        diag.shape().dim_sizes().begin(),
        diag.shape().dim_sizes().end() - (band.Count() > 1 ? 2 : 1));
    dims.push_back(rows);
    dims.push_back(cols);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, MakeOutputShape(*this, dims, diag.dtype(), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const int64_t batches = shape.num_elements() / rows / cols;
    SF_DIAG_DISPATCH(ctx, diag.dtype(), {
      using U = decltype(tag);
      const U pad = version_ > 1 ? ctx->input(4).base<U>()[0] : U{};
      const U* in = diag.base<U>();
      U* o = out->base<U>();
      for (int64_t b = 0; b < batches; ++b) {
        const U* dg = in + b * band.Count() * band.max_len;
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j, ++o) {
            const int64_t d = j - i;
            if (d < band.lower || d > band.upper) {
              *o = pad;
              continue;
            }
            const int64_t t = (d >= 0 ? i : j) + band.Offset(d);
            *o = dg[(band.upper - d) * band.max_len + t];
          }
        }
      }
    });
  }
};

class MatrixSetDiagOp : public MatrixDiagOpBase {
 public:
  using MatrixDiagOpBase::MatrixDiagOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    Band band = band_;
    OP_REQUIRES_OK(ctx, ReadK(ctx, 2, &band));
    TensorShape expected;
    OP_REQUIRES_OK(ctx, FitToMatrix(input, &band, &expected));
    OP_REQUIRES(ctx, expected == diag.shape(),
                NodeInvalidArgument(ctx, "diagonal must have shape ",
                                    expected.DebugString(), ", received ",
                                    diag.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t batches = input.NumElements() / band.rows / band.cols;
    SF_DIAG_DISPATCH(ctx, input.dtype(), {
      using U = decltype(tag);
      const U* in = input.base<U>();
      U* o = out->base<U>();
      std::copy(in, in + input.NumElements(), o);
      const U* dg = diag.base<U>();
      for (int64_t b = 0; b < batches; ++b) {
        U* m = o + b * band.rows * band.cols;
        const U* rowsrc = dg + b * band.Count() * band.max_len;
        for (int64_t d = band.lower; d <= band.upper; ++d) {
          const int64_t len = band.Length(d), off = band.Offset(d);
          const U* src = rowsrc + (band.upper - d) * band.max_len + off;
          for (int64_t t = 0; t < len; ++t) {
            m[(t + std::max<int64_t>(0, -d)) * band.cols + t +
              std::max<int64_t>(0, d)] = src[t];
          }
        }
      }
    });
  }
};

#undef SF_DIAG_DISPATCH

#define REGISTER(OP, KERNEL) \
  REGISTER_KERNEL_BUILDER(   \
      Name(OP).Device(DEVICE_CPU).TypeConstraint("T", PodTypes()), KERNEL);
REGISTER("MatrixDiagPart", MatrixDiagPartOp)
REGISTER("MatrixDiagPartV2", MatrixDiagPartOp)
REGISTER("MatrixDiagPartV3", MatrixDiagPartOp)
REGISTER("MatrixDiag", MatrixDiagOp)
REGISTER("MatrixDiagV2", MatrixDiagOp)
REGISTER("MatrixDiagV3", MatrixDiagOp)
REGISTER("MatrixSetDiag", MatrixSetDiagOp)
REGISTER("MatrixSetDiagV2", MatrixSetDiagOp)
REGISTER("MatrixSetDiagV3", MatrixSetDiagOp)
#undef REGISTER

}  // namespace
}  // namespace stepflow
