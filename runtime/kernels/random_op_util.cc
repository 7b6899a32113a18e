#include "runtime/kernels/random_op_util.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace {

template <typename Index>
absl::Status ReadShape(const Tensor& t, TensorShape* shape) {
  std::vector<int64_t> dims;
  auto v = t.flat<Index>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (v(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", v(i), " must be >= 0"));
    }
    dims.push_back(static_cast<int64_t>(v(i)));
  }
  return TensorShape::BuildTensorShape(dims, shape);
}

}  // namespace

absl::Status ShapeFromInput(const OpKernel& op, const Tensor& t,
                            TensorShape* shape) {
  absl::Status s;
  if (t.dims() != 1) {
    s = absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of {int32,int64}, got shape ",
                     t.shape().DebugString()));
  } else if (t.dtype() == DT_INT32) {
    s = ReadShape<int32_t>(t, shape);
  } else if (t.dtype() == DT_INT64) {
    s = ReadShape<int64_t>(t, shape);
  } else {
    s = absl::InvalidArgumentError(absl::StrCat(
        "shape must be int32 or int64, got ", DataTypeString(t.dtype())));
  }
  if (s.ok()) return s;
  // Whatever ReadShape's code, a bad shape input is InvalidArgument.
  return AttachDef(absl::InvalidArgumentError(s.message()), op.name());
}

absl::Status ConcatShapes(const TensorShape& head, const TensorShape& tail,
                          TensorShape* out) {
  std::vector<int64_t> dims;
  for (int i = 0; i < head.dims(); ++i) dims.push_back(head.dim_size(i));
  for (int i = 0; i < tail.dims(); ++i) dims.push_back(tail.dim_size(i));
  absl::Status s = TensorShape::BuildTensorShape(dims, out);
  if (s.ok()) return s;
  return absl::InvalidArgumentError(s.message());
}

bool EndsWith(const TensorShape& shape, const TensorShape& suffix) {
  const int offset = shape.dims() - suffix.dims();
  if (offset < 0) return false;
  for (int i = 0; i < suffix.dims(); ++i) {
    if (shape.dim_size(offset + i) != suffix.dim_size(i)) return false;
  }
  return true;
}

absl::Status InitGeneratorFromAttrs(OpKernelConstruction* ctx,
                                    GuardedPhiloxRandom* generator) {
  int64_t seed = 0, seed2 = 0;
  absl::Status s = ctx->GetAttr("seed", &seed);
  if (s.ok()) s = ctx->GetAttr("seed2", &seed2);
  if (!s.ok()) return s;
  Env* env = ctx->env();
  return generator->Init(seed, seed2, env != nullptr ? env->random : nullptr);
}

}  // namespace stepflow
