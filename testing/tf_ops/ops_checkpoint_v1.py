"""Op cases for TensorFlow's V1 checkpoints: Save, SaveSlices, Restore and
RestoreSlice, in a scratch directory. What stepflow writes is compared byte
for byte with what TensorFlow writes (scratch outputs), and stepflow
restores files TensorFlow wrote (scratch inputs written here by
TensorFlow's own kernels).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
import os

from op_case_lib import Spec, raw
import numpy as np
import tensorflow as tf

from ops_io import _SLICED, _const, _interop_tensors


def _dtype(value):
    if isinstance(value, tuple):
        return value[1]
    return tf.string if value.dtype == object else tf.as_dtype(value.dtype)


def _restore(names, dtypes, pattern="ckpt", slices=None):
    out = []
    for i, (name, dt) in enumerate(zip(names, dtypes)):
        if slices is None or not slices[i]:
            out.append(raw.Restore(file_pattern=tf.constant(pattern),
                                   tensor_name=tf.constant(name), dt=dt, name="restore%d" % i))
        else:
            out.append(raw.RestoreSlice(file_pattern=tf.constant(pattern),
                                        tensor_name=tf.constant(name),
                                        shape_and_slice=tf.constant(slices[i]), dt=dt,
                                        name="restore%d" % i))
    return out


def _save_restore(named, restore_slices=None):
    names = [n for n, _ in named]
    save = raw.Save(filename=tf.constant("ckpt"), tensor_names=tf.constant(names),
                    data=[_const(v) for _, v in named], name="save")
    return Spec(fetches=_restore(names, [_dtype(v) for _, v in named], slices=restore_slices),
                init=[save.name], scratch=True, scratch_outputs=["ckpt"])


def _save_slices_restore(restore_names, restore_dtypes, restore_slices):
    save = raw.SaveSlices(filename=tf.constant("ckpt"),
                          tensor_names=tf.constant([n for n, _, _ in _SLICED]),
                          shapes_and_slices=tf.constant([s for _, s, _ in _SLICED]),
                          data=[_const(v) for _, _, v in _SLICED], name="save")
    return Spec(fetches=_restore(restore_names, restore_dtypes, slices=restore_slices),
                init=[save.name], scratch=True, scratch_outputs=["ckpt"])


def _tf_setup(named):
    def setup(d):
        tf.raw_ops.Save(filename=os.path.join(d, "tf_ckpt"), tensor_names=[n for n, _ in named],
                        data=[_const(v) for _, v in named])
    return setup


def _tf_sliced_setup(d):
    tf.raw_ops.SaveSlices(filename=os.path.join(d, "tf_ckpt"),
                          tensor_names=[n for n, _, _ in _SLICED],
                          shapes_and_slices=[s for _, s, _ in _SLICED],
                          data=[_const(v) for _, _, v in _SLICED])


def checkpoints_v1(g):
    named = _interop_tensors()
    common = [(n, v) for n, v in named if n not in ("bf16", "u16", "u32", "u64")]
    g.add("Save", "dtypes", lambda c: _save_restore(common), golden=True,
          note="every common dtype saved and restored; the file byte for byte")
    for n, v in named:
        if n in ("bf16", "u16", "u32", "u64"):
            g.add("Save", "dtype_" + n, lambda c, n=n, v=v: _save_restore([(n, v)]))
    g.add("Restore", "tf_written",
          lambda c: Spec(fetches=_restore([n for n, _ in common],
                                          [_dtype(v) for _, v in common], "tf_ckpt"),
                         scratch=True, scratch_setup=_tf_setup(common)), golden=True,
          note="restores every common dtype from a V1 checkpoint TensorFlow wrote")
    g.add("Save", "duplicate_order", lambda c: _save_restore(
        [("b", np.array([1.0], np.float32)), ("a", np.array([2], np.int32))]))

    g.add("SaveSlices", "partitioned",
          lambda c: _save_slices_restore(["part", "cols", "whole"],
                                         [tf.float32, tf.int64, tf.string], None),
          golden=True, note="slices of partitioned tensors; whole tensors restored")
    g.add("RestoreSlice", "partial",
          lambda c: _save_slices_restore(
              ["part", "part", "cols", "whole", "whole"],
              [tf.float32, tf.float32, tf.int64, tf.string, tf.string],
              ["4 3 0,2:1,2", "4 3 1,3:-", "2 4 -:2,2", "", "2 1,1"]),
          golden=True, note="partial restores assembled across saved slices")
    g.add("RestoreSlice", "tf_written",
          lambda c: Spec(fetches=_restore(["part", "cols", "whole"],
                                          [tf.float32, tf.int64, tf.string], "tf_ckpt",
                                          ["4 3 1,2:0,2", "", "2 0,1"]),
                         scratch=True, scratch_setup=_tf_sliced_setup), golden=True,
          note="slices restored from a V1 checkpoint TensorFlow wrote in slices")
    g.add("RestoreSlice", "uncovered",
          lambda c: Spec(fetches=_restore(["part"], [tf.float32], "tf_ckpt", ["4 3 0,2:-"]),
                         scratch=True,
                         scratch_setup=lambda d: tf.raw_ops.SaveSlices(
                             filename=os.path.join(d, "tf_ckpt"), tensor_names=["part"],
                             shapes_and_slices=["4 3 1,3:-"],
                             data=[tf.constant(np.ones([3, 3], np.float32))])))

    # Errors.
    f32 = [("x", np.array([1.0, 2.0], np.float32))]
    g.add("Restore", "missing_tensor", lambda c: Spec(
        fetches=_restore(["nope"], [tf.float32], "tf_ckpt"), scratch=True,
        scratch_setup=_tf_setup(f32)))
    g.add("Restore", "wrong_dtype", lambda c: Spec(
        fetches=_restore(["x"], [tf.int32], "tf_ckpt"), scratch=True,
        scratch_setup=_tf_setup(f32)))
    g.add("Restore", "missing_file", lambda c: Spec(
        fetches=_restore(["x"], [tf.float32], "no_such_ckpt"), scratch=True))
    g.add("RestoreSlice", "shape_mismatch", lambda c: Spec(
        fetches=_restore(["x"], [tf.float32], "tf_ckpt", ["3 0,1"]), scratch=True,
        scratch_setup=_tf_setup(f32)))
    g.add("SaveSlices", "slice_shape_mismatch", lambda c: Spec(
        targets=[raw.SaveSlices(filename=tf.constant("ckpt"),
                                         tensor_names=tf.constant(["x"]),
                                         shapes_and_slices=tf.constant(["4 0,3"]),
                                         data=[tf.constant([1.0, 2.0])], name="save")],
        scratch=True))
