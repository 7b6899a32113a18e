// Checks the registered OpDefs against TensorFlow's signatures: arg names and
// types, attr names, defaults, allowed types and statefulness.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/op_def.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/ops/op_def_test_util.h"

namespace stepflow {
namespace {

using test::Args;
using test::Attrs;
using test::FindAttr;
using test::Op;

TEST(OpsTest, EveryOpIsRegistered) {
  const std::vector<std::string> names = {
      "Const",     "Placeholder",   "PlaceholderWithDefault",
      "Identity",  "NoOp",          "Add",
      "AddV2",     "Sub",           "Mul",
      "Div",       "RealDiv",       "Neg",
      "Square",    "Maximum",       "Minimum",
      "Pow",       "Less",          "Greater",
      "Equal",     "Cast",          "MatMul",
      "BiasAdd",   "Relu",          "Softmax",
      "Sum",       "Mean",          "Prod",
      "Shape",     "Rank",          "Size",
      "Reshape",   "Fill",          "Range",
      "Tile",      "StridedSlice",  "ConcatV2",
      "Pack",      "ExpandDims",    "Squeeze",
      "Switch",    "Merge",         "AddN",
      "ZerosLike", "OnesLike",      "StopGradient",
      "_Send",     "_Recv",         "_HostSend",
      "_HostRecv", "_Arg",          "_Retval",
      "Enter",     "Exit",          "NextIteration",
      "LoopCond",  "ControlTrigger"};
  for (const auto& n : names) {
    EXPECT_NE(OpRegistry::Global()->LookUpOrNull(n), nullptr) << n;
  }
  EXPECT_EQ(OpRegistry::Global()->LookUpOrNull("NoSuchOp"), nullptr);
}

TEST(OpsTest, Signatures) {
  EXPECT_EQ(Args(Op("Const").output_arg()), "output:dtype");
  EXPECT_EQ(Attrs(Op("Const")), "value:tensor,dtype:type");
  EXPECT_EQ(Attrs(Op("Placeholder")), "dtype:type,shape:shape");
  EXPECT_EQ(Args(Op("PlaceholderWithDefault").input_arg()), "input:dtype");
  EXPECT_EQ(Args(Op("AddV2").input_arg()), "x:T,y:T");
  EXPECT_EQ(Args(Op("AddV2").output_arg()), "z:T");
  EXPECT_EQ(Args(Op("Less").output_arg()), "z:bool");
  EXPECT_EQ(Attrs(Op("Equal")), "T:type,incompatible_shape_error:bool");
  EXPECT_EQ(Attrs(Op("Cast")), "SrcT:type,DstT:type,Truncate:bool");
  EXPECT_EQ(Args(Op("Cast").input_arg()), "x:SrcT");
  EXPECT_EQ(Args(Op("MatMul").input_arg()), "a:T,b:T");
  EXPECT_EQ(Args(Op("MatMul").output_arg()), "product:T");
  EXPECT_EQ(Attrs(Op("MatMul")),
            "transpose_a:bool,transpose_b:bool,T:type,grad_a:bool,grad_b:bool");
  EXPECT_EQ(Args(Op("BiasAdd").input_arg()), "value:T,bias:T");
  EXPECT_EQ(Args(Op("Relu").output_arg()), "activations:T");
  EXPECT_EQ(Args(Op("Softmax").input_arg()), "logits:T");
  EXPECT_EQ(Args(Op("Sum").input_arg()), "input:T,reduction_indices:Tidx");
  EXPECT_EQ(Attrs(Op("Mean")), "keep_dims:bool,T:type,Tidx:type");
  EXPECT_EQ(Args(Op("Shape").output_arg()), "output:out_type");
  EXPECT_EQ(Args(Op("Rank").output_arg()), "output:int32");
  EXPECT_EQ(Args(Op("Reshape").input_arg()), "tensor:T,shape:Tshape");
  EXPECT_EQ(Args(Op("Fill").input_arg()), "dims:index_type,value:T");
  EXPECT_EQ(Args(Op("Range").input_arg()), "start:Tidx,limit:Tidx,delta:Tidx");
  EXPECT_EQ(Args(Op("Tile").input_arg()), "input:T,multiples:Tmultiples");
  EXPECT_EQ(Args(Op("StridedSlice").input_arg()),
            "input:T,begin:Index,end:Index,strides:Index");
  EXPECT_EQ(Attrs(Op("StridedSlice")),
            "T:type,Index:type,begin_mask:int,end_mask:int,ellipsis_mask:int,"
            "new_axis_mask:int,shrink_axis_mask:int");
  EXPECT_EQ(Args(Op("ConcatV2").input_arg()), "values:N*T,axis:Tidx");
  EXPECT_EQ(Attrs(Op("ConcatV2")), "N:int,T:type,Tidx:type");
  EXPECT_EQ(Attrs(Op("Pack")), "N:int,T:type,axis:int");
  EXPECT_EQ(Args(Op("ExpandDims").input_arg()), "input:T,dim:Tdim");
  EXPECT_EQ(Attrs(Op("Squeeze")), "T:type,squeeze_dims:list(int)");
  EXPECT_EQ(Args(Op("Switch").input_arg()), "data:T,pred:bool");
  EXPECT_EQ(Args(Op("Switch").output_arg()), "output_false:T,output_true:T");
  EXPECT_EQ(Args(Op("Merge").input_arg()), "inputs:N*T");
  EXPECT_EQ(Args(Op("Merge").output_arg()), "output:T,value_index:int32");
  EXPECT_EQ(Args(Op("AddN").output_arg()), "sum:T");
  EXPECT_EQ(Args(Op("ZerosLike").input_arg()), "x:T");
  EXPECT_EQ(
      Attrs(Op("Enter")),
      "T:type,frame_name:string,is_constant:bool,parallel_iterations:int");
  EXPECT_EQ(Args(Op("LoopCond").input_arg()), "input:bool");
  EXPECT_EQ(Op("ControlTrigger").input_arg_size(), 0);
  EXPECT_EQ(Op("NoOp").output_arg_size(), 0);
}

TEST(OpsTest, Defaults) {
  const auto* shape = FindAttr(Op("Placeholder"), "shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_TRUE(shape->default_value().shape().unknown_rank());
  const auto* ise = FindAttr(Op("Equal"), "incompatible_shape_error");
  ASSERT_NE(ise, nullptr);
  EXPECT_TRUE(ise->default_value().b());
  const auto* fmt = FindAttr(Op("BiasAdd"), "data_format");
  ASSERT_NE(fmt, nullptr);
  EXPECT_EQ(fmt->default_value().s(), "NHWC");
  const auto* out_type = FindAttr(Op("Shape"), "out_type");
  ASSERT_NE(out_type, nullptr);
  EXPECT_EQ(out_type->default_value().type(), DT_INT32);
  const auto* squeeze = FindAttr(Op("Squeeze"), "squeeze_dims");
  ASSERT_NE(squeeze, nullptr);
  EXPECT_TRUE(squeeze->default_value().has_list());
  EXPECT_EQ(squeeze->default_value().list().i_size(), 0);
  const auto* n = FindAttr(Op("ConcatV2"), "N");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->has_minimum());
  EXPECT_EQ(n->minimum(), 2);
  const auto* pi = FindAttr(Op("Enter"), "parallel_iterations");
  ASSERT_NE(pi, nullptr);
  EXPECT_EQ(pi->default_value().i(), 10);
  const auto* index = FindAttr(Op("_Arg"), "index");
  ASSERT_NE(index, nullptr);
  EXPECT_TRUE(index->has_minimum());
  EXPECT_EQ(index->minimum(), 0);
}

TEST(OpsTest, AllowedTypes) {
  auto allowed = [](const std::string& op, const std::string& attr) {
    std::vector<DataType> out;
    const auto* a = FindAttr(Op(op), attr);
    if (a == nullptr) return out;
    for (int t : a->allowed_values().list().type()) {
      out.push_back(static_cast<DataType>(t));
    }
    return out;
  };
  auto contains = [](const std::vector<DataType>& v, DataType t) {
    for (DataType x : v) {
      if (x == t) return true;
    }
    return false;
  };
  EXPECT_TRUE(contains(allowed("MatMul", "T"), DT_FLOAT));
  EXPECT_FALSE(contains(allowed("MatMul", "T"), DT_STRING));
  EXPECT_TRUE(contains(allowed("Add", "T"), DT_STRING));
  EXPECT_FALSE(contains(allowed("AddV2", "T"), DT_STRING));
  EXPECT_FALSE(contains(allowed("Less", "T"), DT_COMPLEX64));
  EXPECT_TRUE(contains(allowed("Less", "T"), DT_INT64));
  EXPECT_TRUE(contains(allowed("Sum", "T"), DT_COMPLEX64));
  EXPECT_FALSE(contains(allowed("Sum", "T"), DT_BOOL));
  EXPECT_EQ(allowed("Reshape", "Tshape"),
            (std::vector<DataType>{DT_INT32, DT_INT64}));
  EXPECT_TRUE(allowed("Identity", "T").empty());  // Any type.
  const auto* fmt = FindAttr(Op("BiasAdd"), "data_format");
  ASSERT_NE(fmt, nullptr);
  EXPECT_EQ(fmt->allowed_values().list().s_size(), 2);
}

TEST(OpsTest, Flags) {
  for (const char* op :
       {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval"}) {
    EXPECT_TRUE(Op(op).is_stateful()) << op;
  }
  for (const char* op :
       {"Const", "Identity", "AddV2", "MatMul", "Switch", "Merge"}) {
    EXPECT_FALSE(Op(op).is_stateful()) << op;
  }
  EXPECT_TRUE(Op("AddV2").is_commutative());
  EXPECT_TRUE(Op("AddV2").is_aggregate());
  EXPECT_TRUE(Op("Mul").is_commutative());
  EXPECT_FALSE(Op("Sub").is_commutative());
  EXPECT_TRUE(Op("AddN").is_aggregate());
}

TEST(OpsTest, ValidatesNodeAgainstOp) {
  NodeDef def;
  def.set_name("c");
  def.set_op("ConcatV2");
  def.add_input("a");
  def.add_input("b");
  def.add_input("axis");
  AddNodeAttr("N", 2, &def);
  AddNodeAttr("T", DT_FLOAT, &def);
  AddDefaultsToNodeDef(Op("ConcatV2"), &def);
  EXPECT_TRUE(ValidateNodeDef(def, Op("ConcatV2")).ok());
  DataTypeVector in, out;
  ASSERT_TRUE(InOutTypesForNode(def, Op("ConcatV2"), &in, &out).ok());
  EXPECT_EQ(in, (DataTypeVector{DT_FLOAT, DT_FLOAT, DT_INT32}));
  EXPECT_EQ(out, (DataTypeVector{DT_FLOAT}));
  AddNodeAttr("N", 1, &def);  // Below the minimum of 2.
  EXPECT_FALSE(ValidateNodeDef(def, Op("ConcatV2")).ok());
}

}  // namespace
}  // namespace stepflow
