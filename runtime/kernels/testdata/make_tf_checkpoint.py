"""Writes the small TensorFlow checkpoints that tensor_bundle_test reads.

Run with TensorFlow's interpreter from the repository root:
  $STEPFLOW_TF_PYTHON runtime/kernels/testdata/make_tf_checkpoint.py \
      runtime/kernels/testdata

Each checkpoint is written by TensorFlow's own SaveV2 / MergeV2Checkpoints
kernels (tf.raw_ops, eager), so the files are exactly what TensorFlow
writes. Values are fixed (no randomness): regenerating gives the same bytes.

  tf_dtypes    one tensor per savable dtype, strings (with an empty and a
               long element), a scalar, empty tensors
  tf_sliced    a [4, 3] float tensor saved as two row slices and an int64
               [2, 4] tensor saved as two column slices (what partitioned
               variables write), plus a whole tensor
  tf_sharded   two per-device saves merged by MergeV2Checkpoints into two
               data shards
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def save(prefix, names, tensors, slices=None):
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                      shape_and_slices=slices or [""] * len(names),
                      tensors=tensors)


def dtype_tensors():
    out = [
        ("f32", tf.constant([[1.5, -2.0, 3.25], [0.0, -0.0, 1e-30]], tf.float32)),
        ("f64", tf.constant([np.pi, -1e300], tf.float64)),
        ("f16", tf.constant([1.0, -2.5, 65504.0], tf.float16)),
        ("bf16", tf.constant([1.0, -3.0], tf.bfloat16)),
        ("i8", tf.constant([-128, 127, 5], tf.int8)),
        ("i16", tf.constant([-32768, 32767], tf.int16)),
        ("i32", tf.constant([[1, -2], [3, 2147483647]], tf.int32)),
        ("i64", tf.constant([-9223372036854775808, 42], tf.int64)),
        ("u8", tf.constant([0, 255, 7], tf.uint8)),
        ("u16", tf.constant([65535, 1], tf.uint16)),
        ("u32", tf.constant([4294967295, 2], tf.uint32)),
        ("u64", tf.constant([18446744073709551615, 3], tf.uint64)),
        ("c64", tf.constant([1 + 2j, -3.5 - 0.5j], tf.complex64)),
        ("c128", tf.constant([2 - 1j], tf.complex128)),
        ("bool", tf.constant([True, False, True], tf.bool)),
        ("str", tf.constant([[b"hello", b""], [b"x" * 200, b"\x00\xff"]], tf.string)),
        ("str_scalar", tf.constant(b"scalar", tf.string)),
        ("scalar", tf.constant(7.0, tf.float32)),
        ("empty", tf.zeros([0, 3], tf.float32)),
        ("empty_str", tf.constant([], tf.string)),
    ]
    return out


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.startswith("tf_") and (".index" in name or ".data-" in name):
            os.remove(os.path.join(out_dir, name))

    named = dtype_tensors()
    save(os.path.join(out_dir, "tf_dtypes"), [n for n, _ in named],
         [t for _, t in named])

    full = np.arange(12, dtype=np.float32).reshape(4, 3)
    cols = np.arange(8, dtype=np.int64).reshape(2, 4) * 10
    save(os.path.join(out_dir, "tf_sliced"),
         ["part", "part", "cols", "cols", "whole"],
         [tf.constant(full[0:1]), tf.constant(full[1:4]),
          tf.constant(cols[:, 0:3]), tf.constant(cols[:, 3:4]),
          tf.constant([b"a", b"bc"])],
         ["4 3 0,1:-", "4 3 1,3:-", "2 4 -:0,3", "2 4 -:3,1", ""])

    tmp = tempfile.mkdtemp(prefix="tf_sharded_")
    try:
        p0 = os.path.join(tmp, "part-00000-of-00002")
        p1 = os.path.join(tmp, "part-00001-of-00002")
        save(p0, ["a", "c"], [tf.constant([1.0, 2.0]), tf.constant(3, tf.int64)])
        save(p1, ["b"], [tf.constant([[b"s0"], [b"s1"]])])
        tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[p0, p1],
                                      destination_prefix=os.path.join(out_dir, "tf_sharded"),
                                      delete_old_dirs=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name in sorted(os.listdir(out_dir)):
        if name.startswith("tf_"):
            print(name, os.path.getsize(os.path.join(out_dir, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
