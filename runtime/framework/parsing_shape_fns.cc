#include "runtime/framework/parsing_shape_fns.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// The dense_shapes attr, each entry checked to have a known rank and
// known dimensions after the first.
absl::Status DenseShapes(InferenceContext* c, std::vector<ShapeHandle>* out) {
  std::vector<TensorShapeProto> protos;
  SF_RETURN_IF_ERROR(c->GetAttr("dense_shapes", &protos));
  for (size_t i = 0; i < protos.size(); ++i) {
    ShapeHandle s;
    SF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(protos[i], &s));
    bool ok = c->RankKnown(s);
    for (int d = 1; ok && d < c->Rank(s); ++d) {
      ok = c->ValueKnown(c->Dim(s, d));
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("dense_shapes[", i,
                       "] has unknown rank or unknown inner dimensions: ",
                       c->DebugString(s)));
    }
    out->push_back(s);
  }
  return absl::OkStatus();
}

absl::Status ListSize(InferenceContext* c, const char* attr, int64_t* size) {
  std::vector<DataType> types;
  SF_RETURN_IF_ERROR(c->GetAttr(attr, &types));
  *size = static_cast<int64_t>(types.size());
  return absl::OkStatus();
}

int64_t StringListSize(InferenceContext* c, const char* attr) {
  const AttrValue* v = c->GetAttr(attr);
  return v == nullptr ? 0 : v->list().s_size();
}

absl::Status CheckCounts(int64_t dense_count,
                         const std::vector<ShapeHandle>& dense_shapes,
                         int64_t dense_types) {
  if (dense_count != dense_types) {
    return absl::InvalidArgumentError("len(dense_keys) != len(dense_types)");
  }
  if (dense_count != static_cast<int64_t>(dense_shapes.size())) {
    return absl::InvalidArgumentError("len(dense_keys) != len(dense_shapes)");
  }
  return absl::OkStatus();
}

// Sets the sparse then dense outputs for examples of shape `input`,
// advancing `*next`.
void SetSparseAndDense(InferenceContext* c, int64_t num_sparse,
                       const std::vector<ShapeHandle>& dense_shapes,
                       ShapeHandle input, int* next) {
  const int64_t rank = c->RankKnown(input) ? c->Rank(input) + 1 : kUnknownDim;
  for (int64_t i = 0; i < num_sparse; ++i) {
    c->set_output((*next)++, c->Matrix(kUnknownDim, rank));
  }
  for (int64_t i = 0; i < num_sparse; ++i) {
    c->set_output((*next)++, c->Vector(kUnknownDim));
  }
  for (int64_t i = 0; i < num_sparse; ++i) {
    c->set_output((*next)++, c->Vector(rank));
  }
  for (const ShapeHandle& dense : dense_shapes) {
    ShapeHandle s;
    // Concatenating with a shape of known rank cannot fail.
    c->Concatenate(input, dense, &s).IgnoreError();
    c->set_output((*next)++, s);
  }
}

}  // namespace

absl::Status ParseExampleShape(InferenceContext* c) {
  int64_t num_sparse = 0, num_dense = 0, sparse_types = 0, dense_types = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("Nsparse", &num_sparse));
  SF_RETURN_IF_ERROR(c->GetAttr("Ndense", &num_dense));
  SF_RETURN_IF_ERROR(ListSize(c, "sparse_types", &sparse_types));
  SF_RETURN_IF_ERROR(ListSize(c, "Tdense", &dense_types));
  std::vector<ShapeHandle> dense_shapes;
  if (num_sparse != sparse_types) {
    return absl::InvalidArgumentError("len(sparse_keys) != len(sparse_types)");
  }
  SF_RETURN_IF_ERROR(DenseShapes(c, &dense_shapes));
  SF_RETURN_IF_ERROR(CheckCounts(num_dense, dense_shapes, dense_types));
  ShapeHandle input, names;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &names));
  int next = 0;
  SetSparseAndDense(c, num_sparse, dense_shapes, input, &next);
  return absl::OkStatus();
}

absl::Status ParseExampleV2Shape(InferenceContext* c) {
  int64_t num_sparse = 0, sparse_types = 0, dense_types = 0;
  int64_t ragged_values = 0, ragged_splits = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  SF_RETURN_IF_ERROR(ListSize(c, "sparse_types", &sparse_types));
  SF_RETURN_IF_ERROR(ListSize(c, "Tdense", &dense_types));
  SF_RETURN_IF_ERROR(ListSize(c, "ragged_value_types", &ragged_values));
  SF_RETURN_IF_ERROR(ListSize(c, "ragged_split_types", &ragged_splits));
  if (num_sparse != sparse_types) {
    return absl::InvalidArgumentError("len(sparse_keys) != len(sparse_types)");
  }
  if (ragged_values != ragged_splits) {
    return absl::InvalidArgumentError(
        "len(ragged_keys) != len(ragged_split_types)");
  }
  std::vector<ShapeHandle> dense_shapes;
  SF_RETURN_IF_ERROR(DenseShapes(c, &dense_shapes));
  SF_RETURN_IF_ERROR(CheckCounts(dense_types, dense_shapes, dense_types));
  ShapeHandle input, names;
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), 1, &input));
  SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &names));
  int next = 0;
  SetSparseAndDense(c, num_sparse, dense_shapes, input, &next);
  // Ragged features: values of unknown length, one row split per example
  // and one more (the number of examples is unknown for a scalar input).
  DimensionHandle num_examples = c->UnknownDim();
  if (c->Rank(input) == 1) num_examples = c->Dim(input, 0);
  DimensionHandle num_splits;
  SF_RETURN_IF_ERROR(c->Add(num_examples, 1, &num_splits));
  for (int64_t i = 0; i < ragged_values; ++i) {
    c->set_output(next++, c->Vector(kUnknownDim));
  }
  for (int64_t i = 0; i < ragged_values; ++i) {
    c->set_output(next++, c->Vector(num_splits));
  }
  return absl::OkStatus();
}

absl::Status ParseSingleExampleShape(InferenceContext* c) {
  int64_t num_sparse = 0, sparse_types = 0, dense_types = 0;
  SF_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  const int64_t num_sparse_keys = StringListSize(c, "sparse_keys");
  const int64_t num_dense_keys = StringListSize(c, "dense_keys");
  SF_RETURN_IF_ERROR(ListSize(c, "sparse_types", &sparse_types));
  SF_RETURN_IF_ERROR(ListSize(c, "Tdense", &dense_types));
  if (num_sparse != num_sparse_keys || num_sparse != sparse_types) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_sparse (", num_sparse, ") must match the size of sparse_keys (",
        num_sparse_keys, ") and sparse_types (", sparse_types, ")"));
  }
  std::vector<ShapeHandle> dense_shapes;
  SF_RETURN_IF_ERROR(DenseShapes(c, &dense_shapes));
  SF_RETURN_IF_ERROR(CheckCounts(num_dense_keys, dense_shapes, dense_types));
  ShapeHandle input;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &input));
  int next = 0;
  SetSparseAndDense(c, num_sparse, dense_shapes, input, &next);
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
