// Checks the variable, resource-variable, training and random OpDefs
// against TensorFlow's: arg names/types (refs marked), attr names, types
// and defaults, statefulness and allows_uninitialized_input.
#include <string>

#include <gtest/gtest.h>

#include "proto/op_def.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"
#include "runtime/ops/op_def_test_util.h"

namespace stepflow {
namespace {

using test::Allowed;
using test::Args;
using test::AttrsWithDefaults;
using test::Op;

struct Expected {
  const char* name;
  const char* inputs;
  const char* outputs;
  const char* attrs;
  bool stateful;
  bool allows_uninitialized;
};

class OpDefTest : public ::testing::TestWithParam<Expected> {};

TEST_P(OpDefTest, MatchesTensorFlow) {
  const Expected& e = GetParam();
  const OpDef& op = Op(e.name);
  EXPECT_EQ(Args(op.input_arg()), e.inputs);
  EXPECT_EQ(Args(op.output_arg()), e.outputs);
  EXPECT_EQ(AttrsWithDefaults(op), e.attrs);
  EXPECT_EQ(op.is_stateful(), e.stateful);
  EXPECT_EQ(op.allows_uninitialized_input(), e.allows_uninitialized);
}

const char kApplyAttrs[] = "T:type,use_locking:bool=false";
const char kApplyNesterovAttrs[] =
    "T:type,use_locking:bool=false,use_nesterov:bool=false";
const char kAdamScalars[] =
    "beta1_power:T,beta2_power:T,lr:T,beta1:T,beta2:T,epsilon:T,grad:T";
const char kRandomAttrs[] = "seed:int=0,seed2:int=0,dtype:type,T:type";

INSTANTIATE_TEST_SUITE_P(
    All, OpDefTest,
    ::testing::Values(
        Expected{"VariableV2", "", "ref:Ref(dtype)",
                 "shape:shape,dtype:type,container:string='',"
                 "shared_name:string=''",
                 true, false},
        Expected{"Variable", "", "ref:Ref(dtype)",
                 "shape:shape,dtype:type,container:string='',"
                 "shared_name:string=''",
                 true, false},
        Expected{"IsVariableInitialized", "ref:Ref(dtype)",
                 "is_initialized:bool", "dtype:type", false, true},
        Expected{"Assign", "ref:Ref(T),value:T", "output_ref:Ref(T)",
                 "T:type,validate_shape:bool=true,use_locking:bool=true", false,
                 true},
        Expected{"AssignAdd", "ref:Ref(T),value:T", "output_ref:Ref(T)",
                 "T:type,use_locking:bool=false", false, false},
        Expected{"AssignSub", "ref:Ref(T),value:T", "output_ref:Ref(T)",
                 "T:type,use_locking:bool=false", false, false},
        Expected{"VarHandleOp", "", "resource:resource",
                 "container:string='',shared_name:string='',"
                 "debug_name:string='',dtype:type,shape:shape,"
                 "allowed_devices:list(string)=[]",
                 true, false},
        Expected{"ReadVariableOp", "resource:resource", "value:dtype",
                 "dtype:type", true, false},
        Expected{"AssignVariableOp", "resource:resource,value:dtype", "",
                 "dtype:type,validate_shape:bool=false", true, false},
        Expected{"AssignAddVariableOp", "resource:resource,value:dtype", "",
                 "dtype:type", true, false},
        Expected{"AssignSubVariableOp", "resource:resource,value:dtype", "",
                 "dtype:type", true, false},
        Expected{"VarIsInitializedOp", "resource:resource",
                 "is_initialized:bool", "", true, false},
        Expected{"DestroyResourceOp", "resource:resource", "",
                 "ignore_lookup_error:bool=true", true, false},
        Expected{"ApplyGradientDescent", "var:Ref(T),alpha:T,delta:T",
                 "out:Ref(T)", kApplyAttrs, false, false},
        Expected{"ResourceApplyGradientDescent", "var:resource,alpha:T,delta:T",
                 "", kApplyAttrs, true, false},
        Expected{"ApplyMomentum",
                 "var:Ref(T),accum:Ref(T),lr:T,grad:T,momentum:T", "out:Ref(T)",
                 kApplyNesterovAttrs, false, false},
        Expected{"ResourceApplyMomentum",
                 "var:resource,accum:resource,lr:T,grad:T,momentum:T", "",
                 kApplyNesterovAttrs, true, false},
        Expected{"ApplyAdam",
                 "var:Ref(T),m:Ref(T),v:Ref(T),beta1_power:T,beta2_power:T,"
                 "lr:T,beta1:T,beta2:T,epsilon:T,grad:T",
                 "out:Ref(T)", kApplyNesterovAttrs, false, false},
        Expected{"ResourceApplyAdam",
                 "var:resource,m:resource,v:resource,beta1_power:T,"
                 "beta2_power:T,lr:T,beta1:T,beta2:T,epsilon:T,grad:T",
                 "", kApplyNesterovAttrs, true, false},
        Expected{"RandomUniform", "shape:T", "output:dtype", kRandomAttrs, true,
                 false},
        Expected{"RandomStandardNormal", "shape:T", "output:dtype",
                 kRandomAttrs, true, false},
        Expected{"TruncatedNormal", "shape:T", "output:dtype", kRandomAttrs,
                 true, false},
        Expected{"RandomUniformInt", "shape:T,minval:Tout,maxval:Tout",
                 "output:Tout", "seed:int=0,seed2:int=0,Tout:type,T:type", true,
                 false}),
    [](const ::testing::TestParamInfo<Expected>& info) {
      return std::string(info.param.name);
    });

TEST(OpDefTest, AllowedTypes) {
  EXPECT_EQ(Allowed(Op("RandomUniform"), "dtype"),
            "half,bfloat16,float,double");
  EXPECT_EQ(Allowed(Op("RandomUniform"), "T"), "int32,int64");
  EXPECT_EQ(Allowed(Op("TruncatedNormal"), "dtype"),
            "half,bfloat16,float,double");
  EXPECT_EQ(Allowed(Op("RandomUniformInt"), "Tout"), "int32,int64");
  EXPECT_EQ(Allowed(Op("Assign"), "T"), "");  // Any type.
  // numbertype: the training and add/sub ops accept numbers only.
  for (const char* name : {"AssignAdd", "AssignSub", "ApplyGradientDescent",
                           "ApplyMomentum", "ApplyAdam", "ResourceApplyAdam"}) {
    const std::string allowed = Allowed(Op(name), "T");
    EXPECT_NE(allowed.find("float"), std::string::npos) << name;
    EXPECT_NE(allowed.find("complex64"), std::string::npos) << name;
    EXPECT_EQ(allowed.find("string"), std::string::npos) << name;
    EXPECT_EQ(allowed.find("bool"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace stepflow
