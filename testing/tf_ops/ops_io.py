"""Op cases for checkpoint I/O (SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename/Filespec, in a scratch directory) and StringJoin.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, raw, v1
import numpy as np
import tensorflow as tf


def string_join(g):
    op = "StringJoin"

    def sj(c, shapes, sep=""):
        return raw.StringJoin(inputs=[c.input(tf.string, s, name="s%d" % i)
                                      for i, s in enumerate(shapes)], separator=sep)

    g.add(op, "two_vectors", lambda c: sj(c, [[3], [3]]), golden=True)
    g.add(op, "separator", lambda c: sj(c, [[2, 2], [2, 2], [2, 2]], ", "))
    g.add(op, "scalar_broadcast", lambda c: sj(c, [[], [3]], "-"), golden=True)
    g.add(op, "n1", lambda c: sj(c, [[2]]))
    g.add(op, "all_scalars", lambda c: sj(c, [[], []], "/"))
    g.add(op, "mismatch", lambda c: sj(c, [[2], [3]]))
    g.add(op, "empty", lambda c: sj(c, [[0], [0]]))


def checkpoints(g):
    def saver_case(c, sharded):
        a = v1.Variable(c.rand(tf.float32, [2, 3]), use_resource=False, name="a")
        b = v1.Variable(c.rand(tf.int32, [4]), use_resource=True, name="b")
        s = v1.Variable(np.array([b"x", b"yz"], object), use_resource=False, name="s",
                        dtype=tf.string)
        saver = v1.train.Saver([a, b, s], sharded=sharded)
        init = v1.global_variables_initializer()
        clobber = tf.group(v1.assign(a, tf.zeros([2, 3])), b.assign(tf.zeros([4], tf.int32)),
                           v1.assign(s, tf.constant([b"", b""])), name="clobber")
        sd = saver.saver_def
        save = sd.save_tensor_name.split(":")[0]
        return Spec(fetches=[a.read_value(), b.read_value(), s.read_value()],
                    init=[init.name, save, clobber.name, sd.restore_op_name], scratch=True)
    for op in ("SaveV2", "RestoreV2"):
        g.add(op, "saver", lambda c: saver_case(c, False), golden=True,
              note="tf.compat.v1.train.Saver: save, clobber, restore")
    for op in ("MergeV2Checkpoints", "ShardedFilename", "StringJoin"):
        g.add(op, "sharded_saver", lambda c: saver_case(c, True),
              note="a sharded tf.compat.v1.train.Saver")

    def save_restore(c, names, values, restore_names, dtypes, slices=None, prefix="ckpt",
                     restore_prefix="ckpt"):
        tensors = [tf.constant(v) for v in values]
        save = raw.SaveV2(prefix=tf.constant(prefix), tensor_names=tf.constant(names),
                          shape_and_slices=tf.constant([""] * len(names)), tensors=tensors,
                          name="save")
        names_fed = np.array([n.encode() for n in restore_names], object)
        restored = raw.RestoreV2(prefix=tf.constant(restore_prefix),
                                 tensor_names=c.feed(names_fed, name="restore_names"),
                                 shape_and_slices=c.feed(np.array(
                                     [s.encode() for s in slices or [""] * len(restore_names)],
                                     object), name="restore_slices"),
                                 dtypes=dtypes, name="restore")
        return Spec(fetches=list(restored), init=[save], scratch=True)

    g.add("SaveV2", "dtypes",
          lambda c: save_restore(
              c, ["f", "d", "i", "s", "h", "b", "c", "u"],
              [c.rand(DTYPES[t], [2, 2]) for t in ("float", "double", "int64", "string")] +
              [c.rand(tf.float16, [3]), c.rand(tf.bool, [2]), c.rand(tf.complex64, [2]),
               c.rand(tf.uint8, [])],
              ["u", "s", "f"], [tf.uint8, tf.string, tf.float32]))
    g.add("SaveV2", "count_mismatch",
          lambda c: Spec(targets=[raw.SaveV2(prefix=tf.constant("ckpt"),
                                             tensor_names=c.feed(np.array([b"a", b"b"],
                                                                          object)),
                                             shape_and_slices=c.feed(np.array([b"", b""],
                                                                              object)),
                                             tensors=[tf.constant(1.0)])], scratch=True),
          golden=True)
    g.add("RestoreV2", "missing_name",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["b"], [tf.float32]),
          golden=True)
    g.add("RestoreV2", "wrong_dtype",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a"], [tf.int32]))
    g.add("RestoreV2", "missing_checkpoint",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a"], [tf.float32],
                                 restore_prefix="other"))
    g.add("RestoreV2", "slice",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.float32).reshape(3, 4)],
                                 ["a"], [tf.float32], slices=["3 4 1,2:-"]),
          note="a shape-and-slice spec: rows 1..2, all columns")
    g.add("RestoreV2", "slice_of_wrong_shape",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.float32).reshape(3, 4)],
                                 ["a"], [tf.float32], slices=["4 4 1,2:-"]))
    g.add("RestoreV2", "slice_columns",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.int64).reshape(3, 4)],
                                 ["a"], [tf.int64], slices=["3 4 -:1,2"]),
          golden=True)
    g.add("RestoreV2", "count_mismatch",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a", "a"], [tf.float32]))

    def merge(c, delete):
        s1 = raw.SaveV2(prefix=tf.constant("part1"), tensor_names=tf.constant(["a"]),
                        shape_and_slices=tf.constant([""]), tensors=[tf.constant([1.0, 2.0])])
        s2 = raw.SaveV2(prefix=tf.constant("part2"), tensor_names=tf.constant(["b"]),
                        shape_and_slices=tf.constant([""]), tensors=[tf.constant([3, 4])])
        m = raw.MergeV2Checkpoints(checkpoint_prefixes=tf.constant(["part1", "part2"]),
                                   destination_prefix=tf.constant("merged"),
                                   delete_old_dirs=delete)
        r = raw.RestoreV2(prefix=tf.constant("merged"), tensor_names=tf.constant(["b", "a"]),
                          shape_and_slices=tf.constant(["", ""]),
                          dtypes=[tf.int32, tf.float32])
        return Spec(fetches=list(r), init=[s1, s2, m], scratch=True)
    g.add("MergeV2Checkpoints", "two_parts", lambda c: merge(c, True), golden=True)
    g.add("MergeV2Checkpoints", "keep_dirs", lambda c: merge(c, False))

    def merge_missing(c):
        m = raw.MergeV2Checkpoints(checkpoint_prefixes=tf.constant(["nothing"]),
                                   destination_prefix=tf.constant("merged"))
        return Spec(targets=[m], scratch=True)
    g.add("MergeV2Checkpoints", "missing_part", merge_missing)

    op = "ShardedFilename"

    def sharded_filename(c, shard, num):
        return raw.ShardedFilename(basename=c.feed(np.array(b"dir/model", object), name="base"),
                                   shard=c.feed(np.array(shard, np.int32), name="shard"),
                                   num_shards=c.feed(np.array(num, np.int32), name="num"))
    g.add(op, "first", lambda c: sharded_filename(c, 0, 3), golden=True)
    g.add(op, "large", lambda c: sharded_filename(c, 12345, 99999))
    g.add(op, "shard_out_of_range", lambda c: sharded_filename(c, 3, 3))
    g.add(op, "shard_not_scalar", lambda c: sharded_filename(c, [0], 3))

    op = "ShardedFilespec"

    def spec(c, num):
        return raw.ShardedFilespec(basename=c.feed(np.array(b"model", object), name="base"),
                                   num_shards=c.feed(np.array(num, np.int32), name="num"))
    g.add(op, "three", lambda c: spec(c, 3), golden=True)
    g.add(op, "one", lambda c: spec(c, 1))
    g.add(op, "wide", lambda c: spec(c, 123456))
    g.add(op, "basename_vector",
          lambda c: raw.ShardedFilespec(
              basename=c.feed(np.array([b"model"], object), name="base"),
              num_shards=c.feed(np.array(2, np.int32), name="num")))
