// String ops. StringJoin and StaticRegexFullMatch are what tf.train.Saver
// uses to build the temporary prefix of a sharded save. Signatures match
// TensorFlow's OpDefs.
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .Output("output: string");

REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Attr("pattern: string")
    .Output("output: bool");

}  // namespace stepflow
