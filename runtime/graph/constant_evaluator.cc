#include "runtime/graph/constant_evaluator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace {

bool IsIntType(DataType dt) { return dt == DT_INT32 || dt == DT_INT64; }

// The values of an int32/int64 tensor.
std::vector<int64_t> Values(const Tensor& t) {
  std::vector<int64_t> out(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out[i] =
        t.dtype() == DT_INT32 ? t.flat<int32_t>()(i) : t.flat<int64_t>()(i);
  }
  return out;
}

// A tensor of `dtype` (int32/int64) with `shape` and `values`.
Tensor MakeInt(DataType dtype, const TensorShape& shape,
               const std::vector<int64_t>& values) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DT_INT32) {
      t.flat<int32_t>()(i) = static_cast<int32_t>(values[i]);
    } else {
      t.flat<int64_t>()(i) = values[i];
    }
  }
  return t;
}

DataType AttrType(const Node& node, const char* name) {
  const AttrValue* v = FindNodeAttr(node.def(), name);
  return v != nullptr && v->value_case() == AttrValue::kType ? v->type()
                                                             : DT_INVALID;
}

int64_t AttrInt(const Node& node, const char* name) {
  const AttrValue* v = FindNodeAttr(node.def(), name);
  return v != nullptr && v->value_case() == AttrValue::kI ? v->i() : 0;
}

bool FoldBinary(const std::string& op, const Tensor& a, const Tensor& b,
                Tensor* out) {
  if (a.dtype() != b.dtype() || !IsIntType(a.dtype())) return false;
  const bool a_scalar = a.NumElements() == 1 && a.dims() <= b.dims();
  const bool b_scalar = b.NumElements() == 1 && b.dims() <= a.dims();
  if (!(a.shape() == b.shape()) && !a_scalar && !b_scalar) return false;
  const std::vector<int64_t> x = Values(a), y = Values(b);
  const TensorShape& shape = a_scalar && !b_scalar ? b.shape() : a.shape();
  // The result's size, not the larger input's: a one-element tensor with
  // an empty one gives an empty result.
  const size_t n = static_cast<size_t>(shape.num_elements());
  std::vector<int64_t> z(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t u = x[x.size() == 1 ? 0 : i], v = y[y.size() == 1 ? 0 : i];
    if (op == "Add" || op == "AddV2") {
      z[i] = u + v;
    } else if (op == "Sub") {
      z[i] = u - v;
    } else if (op == "Mul") {
      z[i] = u * v;
    } else if (op == "Maximum") {
      z[i] = std::max(u, v);
    } else if (op == "Minimum") {
      z[i] = std::min(u, v);
    } else if (op == "FloorMod") {
      // The remainder takes the divisor's sign.
      if (v == 0) return false;
      const int64_t m = u % v;
      z[i] = m != 0 && ((m < 0) != (v < 0)) ? m + v : m;
    } else {  // FloorDiv
      if (v == 0) return false;
      z[i] = u / v - ((u % v != 0) && ((u < 0) != (v < 0)) ? 1 : 0);
    }
  }
  *out = MakeInt(a.dtype(), shape, z);
  return true;
}

// StridedSlice of a 1-D tensor with constant begin/end/strides and no
// ellipsis or new axes.
bool FoldStridedSlice1D(const Node& node, absl::Span<const Tensor* const> in,
                        Tensor* out) {
  const Tensor& t = *in[0];
  if (t.dims() != 1 || !IsIntType(t.dtype()) || in[1]->NumElements() != 1 ||
      in[2]->NumElements() != 1 || in[3]->NumElements() != 1 ||
      AttrInt(node, "ellipsis_mask") != 0 ||
      AttrInt(node, "new_axis_mask") != 0) {
    return false;
  }
  const int64_t n = t.NumElements();
  int64_t begin = Values(*in[1])[0], end = Values(*in[2])[0];
  const int64_t stride = Values(*in[3])[0];
  if (stride == 0) return false;
  const std::vector<int64_t> v = Values(t);
  if (AttrInt(node, "shrink_axis_mask") & 1) {
    if (begin < 0) begin += n;
    if (begin < 0 || begin >= n) return false;
    *out = MakeInt(t.dtype(), TensorShape({}), {v[begin]});
    return true;
  }
  const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? n : n - 1;
  auto clamp = [&](int64_t x) {
    if (x < 0) x += n;
    return std::min(std::max(x, lo), hi);
  };
  begin =
      (AttrInt(node, "begin_mask") & 1) ? (stride > 0 ? lo : hi) : clamp(begin);
  end = (AttrInt(node, "end_mask") & 1) ? (stride > 0 ? hi : lo) : clamp(end);
  std::vector<int64_t> r;
  for (int64_t i = begin; stride > 0 ? i < end : i > end; i += stride) {
    r.push_back(v[i]);
  }
  *out = MakeInt(t.dtype(), TensorShape({static_cast<int64_t>(r.size())}), r);
  return true;
}

// ConcatV2 of int tensors of one rank along any axis (the last input).
bool FoldConcat(absl::Span<const Tensor* const> in, Tensor* out) {
  const Tensor& axis_t = *in[in.size() - 1];
  const Tensor& first = *in[0];
  if (!IsIntType(axis_t.dtype()) || axis_t.NumElements() != 1 ||
      !IsIntType(first.dtype()) || first.dims() == 0) {
    return false;
  }
  const int rank = first.dims();
  int64_t axis = Values(axis_t)[0];
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  // Each input is `outer` rows of (its axis size * inner) elements.
  int64_t outer = 1, inner = 1, axis_size = 0;
  for (int d = 0; d < rank; ++d) {
    if (d < axis) outer *= first.dim_size(d);
    if (d > axis) inner *= first.dim_size(d);
  }
  const size_t n = in.size() - 1;
  std::vector<std::vector<int64_t>> values(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = *in[i];
    if (t.dtype() != first.dtype() || t.dims() != rank) return false;
    for (int d = 0; d < rank; ++d) {
      if (d != axis && t.dim_size(d) != first.dim_size(d)) return false;
    }
    axis_size += t.dim_size(axis);
    values[i] = Values(t);
  }
  std::vector<int64_t> v;
  v.reserve(outer * axis_size * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t row = in[i]->dim_size(axis) * inner;
      v.insert(v.end(), values[i].begin() + o * row,
               values[i].begin() + (o + 1) * row);
    }
  }
  TensorShape shape = first.shape();
  shape.set_dim(axis, axis_size);
  *out = MakeInt(first.dtype(), shape, v);
  return true;
}

}  // namespace

bool IsFoldableForShapes(const Node& node) {
  static const char* const kOps[] = {"Identity",     "StopGradient",
                                     "Snapshot",     "Cast",
                                     "Pack",         "ConcatV2",
                                     "StridedSlice", "Add",
                                     "AddV2",        "Sub",
                                     "Mul",          "FloorDiv",
                                     "FloorMod",     "ListDiff",
                                     "Maximum",      "Minimum",
                                     "Prod",         "Sum",
                                     "Range",        "GatherV2",
                                     "Fill",         "ExpandDims",
                                     "Reshape",      "Squeeze",
                                     "Slice",        "BroadcastGradientArgs",
                                     "Transpose",    "InvertPermutation"};
  for (const char* op : kOps) {
    if (node.type_string() == op) return true;
  }
  return false;
}

bool FoldConstant(const Node& node, int output,
                  absl::Span<const Tensor* const> in, Tensor* out) {
  const std::string& op = node.type_string();
  if (op == "BroadcastGradientArgs") {
    // The axes each side's gradient sums over: where it is 1 (or absent)
    // and the broadcast shape is not, and where both are 1.
    if (in[0]->dims() != 1 || in[1]->dims() != 1 ||
        !IsIntType(in[0]->dtype()) || in[0]->dtype() != in[1]->dtype()) {
      return false;
    }
    const std::vector<int64_t> x = Values(*in[0]), y = Values(*in[1]);
    const int64_t rank = static_cast<int64_t>(std::max(x.size(), y.size()));
    std::vector<int64_t> rx, ry;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t ix = i - (rank - static_cast<int64_t>(x.size()));
      const int64_t iy = i - (rank - static_cast<int64_t>(y.size()));
      const int64_t xi = ix < 0 ? 1 : x[ix], yi = iy < 0 ? 1 : y[iy];
      if (xi == yi) {
        if (xi == 1) {
          rx.push_back(i);
          ry.push_back(i);
        }
      } else if (xi == 1) {
        rx.push_back(i);
      } else if (yi == 1) {
        ry.push_back(i);
      } else {
        return false;
      }
    }
    const std::vector<int64_t>& r = output == 0 ? rx : ry;
    *out = MakeInt(in[0]->dtype(),
                   TensorShape({static_cast<int64_t>(r.size())}), r);
    return true;
  }
  if (op == "ListDiff") {
    // The elements of x not in y, in x's order (output 0), and their
    // positions in x (output 1, of type out_idx).
    const Tensor& x = *in[0];
    if (x.dims() != 1 || in[1]->dims() != 1 || !IsIntType(x.dtype()) ||
        x.dtype() != in[1]->dtype()) {
      return false;
    }
    const DataType idx_type = AttrType(node, "out_idx");
    if (output == 1 && !IsIntType(idx_type)) return false;
    const std::vector<int64_t> xs = Values(x), ys = Values(*in[1]);
    const absl::flat_hash_set<int64_t> drop(ys.begin(), ys.end());
    std::vector<int64_t> kept, where;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (drop.contains(xs[i])) continue;
      kept.push_back(xs[i]);
      where.push_back(static_cast<int64_t>(i));
    }
    const TensorShape shape({static_cast<int64_t>(kept.size())});
    *out = output == 0 ? MakeInt(x.dtype(), shape, kept)
                       : MakeInt(idx_type, shape, where);
    return true;
  }
  if (output != 0) return false;
  if (op == "Slice") {
    const Tensor& t = *in[0];
    if (t.dims() != 1 || !IsIntType(t.dtype()) || in[1]->NumElements() != 1 ||
        in[2]->NumElements() != 1 || !IsIntType(in[1]->dtype())) {
      return false;
    }
    const std::vector<int64_t> v = Values(t);
    const int64_t begin = Values(*in[1])[0];
    int64_t size = Values(*in[2])[0];
    const int64_t n = static_cast<int64_t>(v.size());
    if (size == -1) size = n - begin;
    if (begin < 0 || size < 0 || begin + size > n) return false;
    *out = MakeInt(
        t.dtype(), TensorShape({size}),
        std::vector<int64_t>(v.begin() + begin, v.begin() + begin + size));
    return true;
  }
  if (op == "Identity" || op == "StopGradient" || op == "Snapshot") {
    *out = *in[0];
    return true;
  }
  if (op == "Cast") {
    const DataType dst = AttrType(node, "DstT");
    if (!IsIntType(in[0]->dtype()) || !IsIntType(dst)) return false;
    *out = MakeInt(dst, in[0]->shape(), Values(*in[0]));
    return true;
  }
  if (op == "ExpandDims" || op == "Squeeze") {
    // Only scalars and vectors of one element move between ranks here.
    if (!IsIntType(in[0]->dtype()) || in[0]->NumElements() != 1) return false;
    TensorShape shape;
    if (op == "ExpandDims") {
      if (in[0]->dims() != 0) return false;
      shape = TensorShape({1});
    } else if (in[0]->dims() != 1) {
      return false;
    }
    *out = MakeInt(in[0]->dtype(), shape, Values(*in[0]));
    return true;
  }
  if (op == "Reshape") {
    if (!IsIntType(in[0]->dtype()) || !IsIntType(in[1]->dtype()) ||
        in[1]->dims() > 1) {
      return false;
    }
    const std::vector<int64_t> dims = Values(*in[1]);
    int64_t known = 1, unknown = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1 && unknown < 0) {
        unknown = static_cast<int64_t>(i);
      } else if (dims[i] < 0) {
        return false;
      } else {
        known *= dims[i];
      }
    }
    TensorShape shape;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int64_t>(i) == unknown) {
        if (known == 0 || in[0]->NumElements() % known != 0) return false;
        shape.AddDim(in[0]->NumElements() / known);
      } else {
        shape.AddDim(dims[i]);
      }
    }
    if (shape.num_elements() != in[0]->NumElements()) return false;
    *out = MakeInt(in[0]->dtype(), shape, Values(*in[0]));
    return true;
  }
  if (op == "InvertPermutation") {
    const Tensor& t = *in[0];
    if (t.dims() != 1 || !IsIntType(t.dtype())) return false;
    const std::vector<int64_t> v = Values(t);
    const int64_t n = static_cast<int64_t>(v.size());
    std::vector<int64_t> r(n, -1);
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] < 0 || v[i] >= n || r[v[i]] != -1) return false;
      r[v[i]] = i;
    }
    *out = MakeInt(t.dtype(), t.shape(), r);
    return true;
  }
  if (op == "Transpose") {
    const Tensor& t = *in[0];
    if (t.dims() != 2 || !IsIntType(t.dtype()) || in[1]->NumElements() != 2) {
      return false;
    }
    const std::vector<int64_t> perm = Values(*in[1]);
    const std::vector<int64_t> v = Values(t);
    const int64_t rows = t.dim_size(0), cols = t.dim_size(1);
    if (perm == std::vector<int64_t>{0, 1}) {
      *out = t;
      return true;
    }
    if (perm != std::vector<int64_t>{1, 0}) return false;
    std::vector<int64_t> r(v.size());
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) r[j * rows + i] = v[i * cols + j];
    }
    *out = MakeInt(t.dtype(), TensorShape({cols, rows}), r);
    return true;
  }
  if (op == "Pack") {
    // Along axis 0: scalars into a vector, vectors into a matrix.
    if (AttrInt(node, "axis") != 0 || in[0]->dims() > 1) return false;
    std::vector<int64_t> v;
    for (const Tensor* t : in) {
      if (!(t->shape() == in[0]->shape()) || !IsIntType(t->dtype()) ||
          t->dtype() != in[0]->dtype()) {
        return false;
      }
      for (int64_t x : Values(*t)) v.push_back(x);
    }
    TensorShape shape({static_cast<int64_t>(in.size())});
    if (in[0]->dims() == 1) shape.AddDim(in[0]->dim_size(0));
    *out = MakeInt(in[0]->dtype(), shape, v);
    return true;
  }
  if (op == "ConcatV2") return FoldConcat(in, out);
  if (op == "StridedSlice") return FoldStridedSlice1D(node, in, out);
  if (op == "Add" || op == "AddV2" || op == "Sub" || op == "Mul" ||
      op == "FloorDiv" || op == "FloorMod" || op == "Maximum" ||
      op == "Minimum") {
    return FoldBinary(op, *in[0], *in[1], out);
  }
  if (op == "Prod" || op == "Sum") {
    const Tensor& t = *in[0];
    if (t.dims() != 1 || !IsIntType(t.dtype()) || !IsIntType(in[1]->dtype())) {
      return false;
    }
    for (int64_t a : Values(*in[1])) {
      if (a != 0 && a != -1) return false;
    }
    if (in[1]->NumElements() == 0) return false;
    int64_t r = op == "Prod" ? 1 : 0;
    for (int64_t x : Values(t)) r = op == "Prod" ? r * x : r + x;
    const bool keep = FindNodeAttr(node.def(), "keep_dims") != nullptr &&
                      FindNodeAttr(node.def(), "keep_dims")->b();
    *out = MakeInt(t.dtype(), keep ? TensorShape({1}) : TensorShape({}), {r});
    return true;
  }
  if (op == "Range") {
    if (!IsIntType(in[0]->dtype()) || in[0]->dtype() != in[1]->dtype() ||
        in[0]->dtype() != in[2]->dtype()) {
      return false;
    }
    const int64_t start = Values(*in[0])[0], limit = Values(*in[1])[0],
                  delta = Values(*in[2])[0];
    if (delta == 0 || (delta > 0 && start > limit) ||
        (delta < 0 && start < limit)) {
      return false;
    }
    std::vector<int64_t> v;
    for (int64_t x = start; delta > 0 ? x < limit : x > limit; x += delta) {
      v.push_back(x);
      if (v.size() > 1024) return false;
    }
    *out = MakeInt(in[0]->dtype(),
                   TensorShape({static_cast<int64_t>(v.size())}), v);
    return true;
  }
  if (op == "GatherV2") {
    const Tensor& params = *in[0];
    if (params.dims() != 1 || !IsIntType(params.dtype()) ||
        !IsIntType(in[1]->dtype()) || in[1]->dims() > 1 ||
        Values(*in[2])[0] != 0 || AttrInt(node, "batch_dims") != 0) {
      return false;
    }
    const std::vector<int64_t> p = Values(params);
    std::vector<int64_t> v;
    for (int64_t i : Values(*in[1])) {
      if (i < 0 || i >= static_cast<int64_t>(p.size())) return false;
      v.push_back(p[i]);
    }
    *out = MakeInt(params.dtype(), in[1]->shape(), v);
    return true;
  }
  if (op == "Fill") {
    if (in[0]->dims() != 1 || !IsIntType(in[0]->dtype()) ||
        !IsIntType(in[1]->dtype()) || in[1]->dims() != 0) {
      return false;
    }
    TensorShape shape;
    for (int64_t d : Values(*in[0])) {
      if (d < 0) return false;
      shape.AddDim(d);
    }
    if (shape.num_elements() > 1024) return false;
    *out =
        MakeInt(in[1]->dtype(), shape,
                std::vector<int64_t>(shape.num_elements(), Values(*in[1])[0]));
    return true;
  }
  return false;
}

}  // namespace stepflow
