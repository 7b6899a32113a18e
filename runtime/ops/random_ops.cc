// Random-number ops. Signatures match TensorFlow's OpDefs. The Stateful*
// and Rng* ops draw from (and advance) an RNG state held in a resource
// variable. All but StatelessMultinomial, StatelessShuffle and
// StatelessParameterizedTruncatedNormal are stateful:
// each run draws fresh numbers, so they must never be folded or merged.
// With seed == seed2 == 0 the stream's key comes from the device's injected
// Env random; otherwise it is determined by (seed, seed2).
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_shape_fns.h"
#include "runtime/framework/random_shape_fns.h"

namespace stepflow {

REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomShape);

REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomShape);

REGISTER_OP("TruncatedNormal")
    .Input("shape: T")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomShape);

REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomShape);

REGISTER_OP("Multinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: realnumbertype")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::MultinomialShape);

REGISTER_OP("StatelessMultinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Input("seed: Tseed")
    .Output("output: output_dtype")
    .Attr("T: realnumbertype")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessMultinomialShape);

REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("StatelessShuffle")
    .Input("value: T")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("RandomGamma")
    .Input("shape: S")
    .Input("alpha: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomWithParamShape);

REGISTER_OP("ParameterizedTruncatedNormal")
    .Input("shape: T")
    .Input("means: dtype")
    .Input("stdevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ParameterizedTruncatedNormalShape);

REGISTER_OP("StatelessParameterizedTruncatedNormal")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("means: dtype")
    .Input("stddevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("dtype: {half, float, double}")
    .SetShapeFn(shape_inference::StatelessParameterizedTruncatedNormalShape);

// Removed from GraphDef version 25 (replaced by RandomPoissonV2); kept for
// older graphs.
REGISTER_OP("RandomPoisson")
    .Input("shape: S")
    .Input("rate: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("dtype: {half, float, double}")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomWithParamShape);

REGISTER_OP("RandomPoissonV2")
    .Input("shape: S")
    .Input("rate: R")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RandomWithParamShape);

#define SF_STATEFUL_RANDOM_OP(name, dtype_attr) \
  REGISTER_OP(name)                             \
      .Input("resource: resource")              \
      .Input("algorithm: int64")                \
      .Input("shape: shape_dtype")              \
      .Output("output: dtype")                  \
      .Attr(dtype_attr)                         \
      .Attr("shape_dtype: type = DT_INT64")     \
      .SetIsStateful()                          \
      .SetShapeFn(shape_inference::StatefulRandomShape)

SF_STATEFUL_RANDOM_OP("StatefulUniform", "dtype: type = DT_FLOAT");
SF_STATEFUL_RANDOM_OP("StatefulStandardNormalV2", "dtype: type = DT_FLOAT");
SF_STATEFUL_RANDOM_OP("StatefulTruncatedNormal", "dtype: type = DT_FLOAT");
SF_STATEFUL_RANDOM_OP("StatefulUniformFullInt", "dtype: type = DT_UINT64");
#undef SF_STATEFUL_RANDOM_OP

REGISTER_OP("StatefulUniformInt")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_INT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::StatefulUniformIntShape);

REGISTER_OP("RngSkip")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("delta: int64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RngSkipShape);

REGISTER_OP("RngReadAndSkip")
    .Input("resource: resource")
    .Input("alg: int32")
    .Input("delta: uint64")
    .Output("value: int64")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RngReadAndSkipShape);

}  // namespace stepflow
