// Checkpoint I/O ops written by tf.train.Saver (V2 checkpoints): SaveV2,
// RestoreV2, MergeV2Checkpoints, ShardedFilename and ShardedFilespec.
// Signatures match TensorFlow's OpDefs (MergeV2Checkpoints includes the
// later `allow_missing_files` attr; graphs without it get the default).
// The kernels (runtime/kernels/save_restore_ops.cc) read and write
// TensorFlow's checkpoint format (the tensor bundle),
// runtime/kernels/CHECKPOINT_FORMAT.md.
#include "runtime/framework/io_shape_fns.h"
#include "runtime/framework/op.h"

namespace stepflow {

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::SaveSlicesShape);

// TensorFlow's V1 checkpoints (runtime/kernels/tensor_slice_table.h).
REGISTER_OP("Save")
    .Input("filename: string")
    .Input("tensor_names: string")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::SaveShape);

REGISTER_OP("SaveSlices")
    .Input("filename: string")
    .Input("tensor_names: string")
    .Input("shapes_and_slices: string")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::SaveSlicesShape);

REGISTER_OP("Restore")
    .Input("file_pattern: string")
    .Input("tensor_name: string")
    .Output("tensor: dt")
    .Attr("dt: type")
    .Attr("preferred_shard: int = -1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RestoreShape);

REGISTER_OP("RestoreSlice")
    .Input("file_pattern: string")
    .Input("tensor_name: string")
    .Input("shape_and_slice: string")
    .Output("tensor: dt")
    .Attr("dt: type")
    .Attr("preferred_shard: int = -1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RestoreSliceShape);

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(shape_inference::RestoreV2Shape);

REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn(shape_inference::MergeV2CheckpointsShape);

REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(shape_inference::ScalarInputsScalarOutputShape);

REGISTER_OP("ShardedFilespec")
    .Input("basename: string")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(shape_inference::ScalarInputsScalarOutputShape);

}  // namespace stepflow
