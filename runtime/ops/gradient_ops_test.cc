// Checks the OpDefs of the math, nn and array ops used by TensorFlow's
// gradient and optimizer code against TensorFlow's signatures: arg names
// and types, attr names and order, defaults, allowed types and flags.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/op_def.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"
#include "runtime/ops/op_def_test_util.h"

namespace stepflow {
namespace {

using test::Allows;
using test::Args;
using test::Attr;
using test::Attrs;
using test::Op;

TEST(GradientOpsTest, AllRegistered) {
  for (const char* name : {"Abs",
                           "Sign",
                           "Floor",
                           "Ceil",
                           "Round",
                           "Sqrt",
                           "Rsqrt",
                           "Exp",
                           "Log",
                           "Log1p",
                           "Tanh",
                           "Sigmoid",
                           "Reciprocal",
                           "Inv",
                           "SqrtGrad",
                           "RsqrtGrad",
                           "TanhGrad",
                           "SigmoidGrad",
                           "ReciprocalGrad",
                           "InvGrad",
                           "FloorDiv",
                           "TruncateDiv",
                           "FloorMod",
                           "Mod",
                           "SquaredDifference",
                           "NotEqual",
                           "LessEqual",
                           "GreaterEqual",
                           "LogicalAnd",
                           "LogicalOr",
                           "LogicalNot",
                           "Select",
                           "SelectV2",
                           "BatchMatMul",
                           "BatchMatMulV2",
                           "Max",
                           "Min",
                           "All",
                           "Any",
                           "ArgMax",
                           "ArgMin",
                           "Cumsum",
                           "Relu6",
                           "Elu",
                           "Softplus",
                           "LogSoftmax",
                           "ReluGrad",
                           "Relu6Grad",
                           "EluGrad",
                           "SoftplusGrad",
                           "BiasAddGrad",
                           "SoftmaxCrossEntropyWithLogits",
                           "SparseSoftmaxCrossEntropyWithLogits",
                           "L2Loss",
                           "Transpose",
                           "Slice",
                           "Gather",
                           "GatherV2",
                           "OneHot",
                           "Unpack",
                           "Split",
                           "SplitV",
                           "DynamicStitch",
                           "BroadcastGradientArgs",
                           "ShapeN",
                           "TileGrad",
                           "PreventGradient",
                           "IdentityN",
                           "Snapshot"}) {
    EXPECT_NE(OpRegistry::Global()->LookUpOrNull(name), nullptr) << name;
  }
}

TEST(GradientOpsTest, Signatures) {
  EXPECT_EQ(Args(Op("SqrtGrad").input_arg()), "y:T,dy:T");
  EXPECT_EQ(Args(Op("SqrtGrad").output_arg()), "z:T");
  EXPECT_EQ(Args(Op("ReluGrad").input_arg()), "gradients:T,features:T");
  EXPECT_EQ(Args(Op("ReluGrad").output_arg()), "backprops:T");
  EXPECT_EQ(Args(Op("EluGrad").input_arg()), "gradients:T,outputs:T");
  EXPECT_EQ(Args(Op("Relu6").output_arg()), "activations:T");
  EXPECT_EQ(Args(Op("LogSoftmax").output_arg()), "logsoftmax:T");
  EXPECT_EQ(Args(Op("BiasAddGrad").input_arg()), "out_backprop:T");
  EXPECT_EQ(Attrs(Op("BiasAddGrad")), "T:type,data_format:string");
  EXPECT_EQ(Args(Op("SoftmaxCrossEntropyWithLogits").input_arg()),
            "features:T,labels:T");
  EXPECT_EQ(Args(Op("SoftmaxCrossEntropyWithLogits").output_arg()),
            "loss:T,backprop:T");
  EXPECT_EQ(Args(Op("SparseSoftmaxCrossEntropyWithLogits").input_arg()),
            "features:T,labels:Tlabels");
  EXPECT_EQ(Args(Op("L2Loss").input_arg()), "t:T");
  EXPECT_EQ(Args(Op("BroadcastGradientArgs").input_arg()), "s0:T,s1:T");
  EXPECT_EQ(Args(Op("BroadcastGradientArgs").output_arg()), "r0:T,r1:T");
  EXPECT_EQ(Args(Op("ShapeN").input_arg()), "input:N*T");
  EXPECT_EQ(Args(Op("ShapeN").output_arg()), "output:N*out_type");
  EXPECT_EQ(Args(Op("DynamicStitch").input_arg()), "indices:N*int32,data:N*T");
  EXPECT_EQ(Args(Op("DynamicStitch").output_arg()), "merged:T");
  EXPECT_EQ(Args(Op("TileGrad").input_arg()), "input:T,multiples:int32");
  EXPECT_EQ(Attrs(Op("PreventGradient")), "T:type,message:string");
  EXPECT_EQ(Args(Op("IdentityN").input_arg()), "input:[T]");
  EXPECT_EQ(Attrs(Op("IdentityN")), "T:list(type)");
  EXPECT_EQ(Args(Op("Transpose").input_arg()), "x:T,perm:Tperm");
  EXPECT_EQ(Args(Op("Slice").input_arg()), "input:T,begin:Index,size:Index");
  EXPECT_EQ(Attrs(Op("Gather")),
            "validate_indices:bool,Tparams:type,Tindices:type");
  EXPECT_EQ(Args(Op("GatherV2").input_arg()),
            "params:Tparams,indices:Tindices,axis:Taxis");
  EXPECT_EQ(Attrs(Op("GatherV2")),
            "batch_dims:int,Tparams:type,Tindices:type,Taxis:type");
  EXPECT_EQ(Args(Op("OneHot").input_arg()),
            "indices:TI,depth:int32,on_value:T,off_value:T");
  EXPECT_EQ(Attrs(Op("OneHot")), "axis:int,T:type,TI:type");
  EXPECT_EQ(Args(Op("Unpack").output_arg()), "output:num*T");
  EXPECT_EQ(Attrs(Op("Unpack")), "num:int,T:type,axis:int");
  EXPECT_EQ(Args(Op("Split").input_arg()), "split_dim:int32,value:T");
  EXPECT_EQ(Args(Op("SplitV").input_arg()),
            "value:T,size_splits:Tlen,split_dim:int32");
  EXPECT_EQ(Args(Op("SplitV").output_arg()), "output:num_split*T");
  EXPECT_EQ(Args(Op("Select").input_arg()), "condition:bool,t:T,e:T");
  EXPECT_EQ(Attrs(Op("BatchMatMulV2")),
            "T:type,adj_x:bool,adj_y:bool,grad_x:bool,grad_y:bool");
  EXPECT_EQ(Args(Op("ArgMax").input_arg()), "input:T,dimension:Tidx");
  EXPECT_EQ(Args(Op("ArgMax").output_arg()), "output:output_type");
  EXPECT_EQ(Attrs(Op("Cumsum")),
            "exclusive:bool,reverse:bool,T:type,Tidx:type");
  EXPECT_EQ(Args(Op("All").input_arg()), "input:bool,reduction_indices:Tidx");
  EXPECT_EQ(Attrs(Op("Max")), "keep_dims:bool,T:type,Tidx:type");
  EXPECT_EQ(Attrs(Op("NotEqual")), "T:type,incompatible_shape_error:bool");
  EXPECT_EQ(Args(Op("LogicalNot").input_arg()), "x:bool");
}

TEST(GradientOpsTest, Defaults) {
  EXPECT_EQ(Attr("ArgMax", "output_type").default_value().type(), DT_INT64);
  EXPECT_EQ(Attr("ArgMin", "Tidx").default_value().type(), DT_INT32);
  EXPECT_EQ(Attr("SparseSoftmaxCrossEntropyWithLogits", "Tlabels")
                .default_value()
                .type(),
            DT_INT64);
  EXPECT_EQ(Attr("SplitV", "Tlen").default_value().type(), DT_INT64);
  EXPECT_EQ(Attr("OneHot", "TI").default_value().type(), DT_INT64);
  EXPECT_EQ(Attr("OneHot", "axis").default_value().i(), -1);
  EXPECT_EQ(Attr("GatherV2", "batch_dims").default_value().i(), 0);
  EXPECT_TRUE(Attr("Gather", "validate_indices").default_value().b());
  EXPECT_FALSE(Attr("Cumsum", "exclusive").default_value().b());
  EXPECT_FALSE(Attr("Cumsum", "reverse").default_value().b());
  EXPECT_FALSE(Attr("BatchMatMul", "adj_x").default_value().b());
  EXPECT_EQ(Attr("Transpose", "Tperm").default_value().type(), DT_INT32);
  EXPECT_EQ(Attr("BroadcastGradientArgs", "T").default_value().type(),
            DT_INT32);
  EXPECT_EQ(Attr("ShapeN", "out_type").default_value().type(), DT_INT32);
  EXPECT_EQ(Attr("PreventGradient", "message").default_value().s(), "");
  EXPECT_EQ(Attr("BiasAddGrad", "data_format").default_value().s(), "NHWC");
  EXPECT_TRUE(Attr("NotEqual", "incompatible_shape_error").default_value().b());
  EXPECT_FALSE(Attr("Any", "keep_dims").default_value().b());
  EXPECT_EQ(Attr("Unpack", "axis").default_value().i(), 0);
  EXPECT_EQ(Attr("Unpack", "num").minimum(), 0);
  EXPECT_EQ(Attr("Split", "num_split").minimum(), 1);
  EXPECT_EQ(Attr("DynamicStitch", "N").minimum(), 1);
}

TEST(GradientOpsTest, AllowedTypes) {
  EXPECT_FALSE(Allows("Sqrt", "T", DT_INT32));
  EXPECT_TRUE(Allows("Sqrt", "T", DT_COMPLEX64));
  EXPECT_TRUE(Allows("Abs", "T", DT_INT8));
  EXPECT_FALSE(Allows("Abs", "T", DT_UINT8));
  EXPECT_TRUE(Allows("Reciprocal", "T", DT_INT64));
  EXPECT_FALSE(Allows("SqrtGrad", "T", DT_INT32));
  EXPECT_FALSE(Allows("Floor", "T", DT_INT32));
  EXPECT_TRUE(Allows("FloorMod", "T", DT_INT32));
  EXPECT_TRUE(Allows("FloorMod", "T", DT_UINT8));
  EXPECT_FALSE(Allows("FloorMod", "T", DT_COMPLEX64));
  EXPECT_TRUE(Allows("FloorDiv", "T", DT_UINT8));
  EXPECT_FALSE(Allows("SquaredDifference", "T", DT_UINT8));
  EXPECT_FALSE(Allows("LessEqual", "T", DT_COMPLEX64));
  EXPECT_TRUE(Allows("NotEqual", "T", DT_STRING));
  // TensorFlow 2.21: ordered types only (no complex), ArgMax also bool.
  EXPECT_FALSE(Allows("Max", "T", DT_COMPLEX64));
  EXPECT_TRUE(Allows("ArgMax", "T", DT_BOOL));
  EXPECT_FALSE(Allows("Elu", "T", DT_INT32));
  EXPECT_TRUE(Allows("Relu6", "T", DT_INT32));
  EXPECT_TRUE(Allows("BiasAddGrad", "T", DT_COMPLEX128));
  EXPECT_FALSE(Allows("L2Loss", "T", DT_INT32));
  EXPECT_TRUE(Allows("SparseSoftmaxCrossEntropyWithLogits", "T", DT_HALF));
  EXPECT_FALSE(
      Allows("SparseSoftmaxCrossEntropyWithLogits", "Tlabels", DT_UINT8));
  EXPECT_TRUE(Allows("OneHot", "TI", DT_UINT8));
  EXPECT_FALSE(Allows("BroadcastGradientArgs", "T", DT_FLOAT));
  EXPECT_FALSE(Allows("BatchMatMul", "T", DT_UINT8));
  EXPECT_TRUE(Allows("Transpose", "T", DT_STRING));  // Any type.
}

TEST(GradientOpsTest, Flags) {
  EXPECT_TRUE(Op("SquaredDifference").is_commutative());
  EXPECT_TRUE(Op("LogicalAnd").is_commutative());
  EXPECT_TRUE(Op("NotEqual").is_commutative());
  EXPECT_FALSE(Op("FloorDiv").is_commutative());
  for (const char* op : {"Snapshot", "DynamicStitch", "Gather", "OneHot",
                         "SparseSoftmaxCrossEntropyWithLogits", "Cumsum"}) {
    EXPECT_FALSE(Op(op).is_stateful()) << op;
  }
}

}  // namespace
}  // namespace stepflow
