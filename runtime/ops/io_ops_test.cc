// Checks the checkpoint I/O and string OpDefs against TensorFlow's: arg
// names and types, attr names, types and defaults, statefulness.
#include <string>

#include <gtest/gtest.h>

#include "proto/op_def.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"
#include "runtime/ops/op_def_test_util.h"

namespace stepflow {
namespace {

using test::Args;
using test::AttrsWithDefaults;
using test::Op;

TEST(IoOpsTest, SaveV2) {
  const OpDef& op = Op("SaveV2");
  EXPECT_EQ(Args(op.input_arg()),
            "prefix:string,tensor_names:string,shape_and_slices:string,"
            "tensors:[dtypes]");
  EXPECT_EQ(Args(op.output_arg()), "");
  EXPECT_EQ(AttrsWithDefaults(op), "dtypes:list(type)");
  EXPECT_TRUE(op.is_stateful());
}

TEST(IoOpsTest, RestoreV2) {
  const OpDef& op = Op("RestoreV2");
  EXPECT_EQ(Args(op.input_arg()),
            "prefix:string,tensor_names:string,shape_and_slices:string");
  EXPECT_EQ(Args(op.output_arg()), "tensors:[dtypes]");
  EXPECT_EQ(AttrsWithDefaults(op), "dtypes:list(type)");
  EXPECT_TRUE(op.is_stateful());
}

TEST(IoOpsTest, MergeV2Checkpoints) {
  const OpDef& op = Op("MergeV2Checkpoints");
  EXPECT_EQ(Args(op.input_arg()),
            "checkpoint_prefixes:string,destination_prefix:string");
  EXPECT_EQ(Args(op.output_arg()), "");
  EXPECT_EQ(AttrsWithDefaults(op),
            "delete_old_dirs:bool=true,allow_missing_files:bool=false");
  EXPECT_TRUE(op.is_stateful());
}

TEST(IoOpsTest, ShardedFilenameAndFilespec) {
  const OpDef& name = Op("ShardedFilename");
  EXPECT_EQ(Args(name.input_arg()),
            "basename:string,shard:int32,num_shards:int32");
  EXPECT_EQ(Args(name.output_arg()), "filename:string");
  EXPECT_EQ(AttrsWithDefaults(name), "");
  EXPECT_FALSE(name.is_stateful());
  const OpDef& spec = Op("ShardedFilespec");
  EXPECT_EQ(Args(spec.input_arg()), "basename:string,num_shards:int32");
  EXPECT_EQ(Args(spec.output_arg()), "filename:string");
  EXPECT_FALSE(spec.is_stateful());
}

TEST(StringOpsTest, StringJoin) {
  const OpDef& op = Op("StringJoin");
  EXPECT_EQ(Args(op.input_arg()), "inputs:N*string");
  EXPECT_EQ(Args(op.output_arg()), "output:string");
  EXPECT_EQ(AttrsWithDefaults(op), "N:int,separator:string=''");
  EXPECT_FALSE(op.is_stateful());
}

}  // namespace
}  // namespace stepflow
