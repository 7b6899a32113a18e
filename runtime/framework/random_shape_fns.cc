#include "runtime/framework/random_shape_fns.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace shape_inference {
namespace {

// TensorFlow's RNG_KEY_SIZE and RNG_MAX_COUNTER_SIZE.
constexpr int64_t kRngKeySize = 1;
constexpr int64_t kRngMaxCounterSize = 2;

// A V1 seed: a vector of two.
absl::Status CheckSeed(InferenceContext* c, int index) {
  ShapeHandle seed;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(index), 1, &seed));
  DimensionHandle unused;
  return c->WithValue(c->Dim(seed, 0), 2, &unused);
}

// minval/maxval of the integer forms, with TensorFlow's own message.
absl::Status CheckBound(InferenceContext* c, int index, const char* name) {
  ShapeHandle unused;
  if (!c->WithRank(c->input(index), 0, &unused).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a scalar; got a tensor of shape ",
                     c->DebugString(c->input(index))));
  }
  return absl::OkStatus();
}

absl::Status OutputFromShapeInput(InferenceContext* c, int index) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(index, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status Broadcast(InferenceContext* c, ShapeHandle a, ShapeHandle b,
                       ShapeHandle* out) {
  return BroadcastBinaryOpOutputShapeFnHelper(c, a, b, true, out);
}

}  // namespace

absl::Status MultinomialShape(InferenceContext* c) {
  ShapeHandle logits;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &logits));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  DimensionHandle num_samples;
  SF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &num_samples));
  c->set_output(0, c->Matrix(c->Dim(logits, 0), num_samples));
  return absl::OkStatus();
}

absl::Status StatelessMultinomialShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckSeed(c, 2));
  return MultinomialShape(c);
}

absl::Status ParameterizedTruncatedNormalShape(InferenceContext* c) {
  ShapeHandle unused;
  for (int i = 1; i <= 4; ++i) {
    SF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(i), 1, &unused));
  }
  return OutputFromShapeInput(c, 0);
}

absl::Status RandomWithParamShape(InferenceContext* c) {
  ShapeHandle out;
  SF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  SF_RETURN_IF_ERROR(c->Concatenate(out, c->input(1), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status RngSkipShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  return CheckInputRank(c, 2, 0);
}

absl::Status RngReadAndSkipShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(RngSkipShape(c));
  c->set_output(0, c->Vector(kRngMaxCounterSize + kRngKeySize));
  return absl::OkStatus();
}

absl::Status StatefulRandomShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  return OutputFromShapeInput(c, 2);
}

absl::Status StatefulUniformIntShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckInputRank(c, 1, 0));
  SF_RETURN_IF_ERROR(CheckBound(c, 3, "minval"));
  SF_RETURN_IF_ERROR(CheckBound(c, 4, "maxval"));
  return OutputFromShapeInput(c, 2);
}

absl::Status StatelessRandomShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckSeed(c, 1));
  return OutputFromShapeInput(c, 0);
}

absl::Status StatelessRandomUniformIntShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckBound(c, 2, "minval"));
  SF_RETURN_IF_ERROR(CheckBound(c, 3, "maxval"));
  return StatelessRandomShape(c);
}

absl::Status StatelessParameterizedTruncatedNormalShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckSeed(c, 1));
  // The four parameters must broadcast together.
  ShapeHandle params;
  SF_RETURN_IF_ERROR(Broadcast(c, c->input(2), c->input(3), &params));
  SF_RETURN_IF_ERROR(Broadcast(c, c->input(4), params, &params));
  SF_RETURN_IF_ERROR(Broadcast(c, c->input(5), params, &params));
  return OutputFromShapeInput(c, 0);
}

absl::Status StatelessRandomShapeV2(InferenceContext* c) {
  ShapeHandle key;
  SF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &key));
  SF_RETURN_IF_ERROR(CheckInputRank(c, 2, 1));  // counter
  SF_RETURN_IF_ERROR(CheckInputRank(c, 3, 0));  // alg
  DimensionHandle unused;
  SF_RETURN_IF_ERROR(c->WithValue(c->Dim(key, 0), kRngKeySize, &unused));
  return OutputFromShapeInput(c, 0);
}

absl::Status StatelessRandomUniformIntV2Shape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckBound(c, 4, "minval"));
  SF_RETURN_IF_ERROR(CheckBound(c, 5, "maxval"));
  return StatelessRandomShapeV2(c);
}

absl::Status StatelessRandomGetKeyCounterShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(CheckSeed(c, 0));
  c->set_output(0, c->Vector(kRngKeySize));
  c->set_output(1, c->Vector(kRngMaxCounterSize));
  return absl::OkStatus();
}

absl::Status StatelessRandomGetKeyCounterAlgShape(InferenceContext* c) {
  SF_RETURN_IF_ERROR(StatelessRandomGetKeyCounterShape(c));
  c->set_output(2, c->Scalar());
  return absl::OkStatus();
}

}  // namespace shape_inference
}  // namespace stepflow
