// Stateless random-number ops. Signatures match TensorFlow's OpDefs. The
// output is a pure function of the inputs (a seed, or a key, counter and
// algorithm), so these ops are not stateful, except StatelessRandomGetAlg,
// whose answer depends on the device.
#include "runtime/framework/common_shape_fns.h"
#include "runtime/framework/op.h"
#include "runtime/framework/random_shape_fns.h"

namespace stepflow {

#define SF_STATELESS_FLOAT_OP(name)                              \
  REGISTER_OP(name)                                              \
      .Input("shape: T")                                         \
      .Input("seed: Tseed")                                      \
      .Output("output: dtype")                                   \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT") \
      .Attr("T: {int32, int64} = DT_INT32")                      \
      .Attr("Tseed: {int32, int64} = DT_INT64")                  \
      .SetShapeFn(shape_inference::StatelessRandomShape)

SF_STATELESS_FLOAT_OP("StatelessRandomUniform");
SF_STATELESS_FLOAT_OP("StatelessRandomNormal");
SF_STATELESS_FLOAT_OP("StatelessTruncatedNormal");
#undef SF_STATELESS_FLOAT_OP

REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomUniformIntShape);

REGISTER_OP("StatelessRandomUniformFullInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomShape);

#define SF_STATELESS_FLOAT_OP_V2(name)                           \
  REGISTER_OP(name)                                              \
      .Input("shape: Tshape")                                    \
      .Input("key: uint64")                                      \
      .Input("counter: uint64")                                  \
      .Input("alg: int32")                                       \
      .Output("output: dtype")                                   \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT") \
      .Attr("Tshape: {int32, int64} = DT_INT32")                 \
      .SetShapeFn(shape_inference::StatelessRandomShapeV2)

SF_STATELESS_FLOAT_OP_V2("StatelessRandomUniformV2");
SF_STATELESS_FLOAT_OP_V2("StatelessRandomNormalV2");
SF_STATELESS_FLOAT_OP_V2("StatelessTruncatedNormalV2");
#undef SF_STATELESS_FLOAT_OP_V2

REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::StatelessRandomUniformIntV2Shape);

REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::StatelessRandomShapeV2);

REGISTER_OP("StatelessRandomGammaV2")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomShape);

REGISTER_OP("StatelessRandomGammaV3")
    .Input("shape: shape_dtype")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("shape_dtype: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::StatelessRandomShapeV2);

REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("lam: Rtype")
    .Output("output: dtype")
    .Attr("Rtype: {half, float, double, int32, int64}")
    .Attr("dtype: {half, float, double, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomShape);

REGISTER_OP("StatelessRandomBinomial")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomShape);

REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomGetKeyCounterShape);

REGISTER_OP("StatelessRandomGetAlg")
    .Output("alg: int32")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("StatelessRandomGetKeyCounterAlg")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Output("alg: int32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::StatelessRandomGetKeyCounterAlgShape);

}  // namespace stepflow
