"""Op cases for checkpoint I/O (SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename/Filespec, in a scratch directory), StringJoin and
StaticRegexFullMatch.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
import os

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


def static_regex_full_match(g):
    op = "StaticRegexFullMatch"

    def m(c, values, pattern):
        return raw.StaticRegexFullMatch(input=c.feed(np.array(values, object), name="s"),
                                        pattern=pattern)

    g.add(op, "s3_prefix", lambda c: m(c, [b"s3://bucket/m", b"/tmp/m", b"s3:/", b""],
                                       "^s3://.*"), golden=True,
          note="the pattern tf.compat.v1.train.Saver's sharded save uses")
    g.add(op, "matrix", lambda c: m(c, [[b"abc", b"abd"], [b"xabc", b"a\nc"]], "a.c"),
          golden=True)
    g.add(op, "scalar", lambda c: m(c, b"2024-01-02", r"\d{4}-\d{2}-\d{2}"))
    g.add(op, "alternation_classes",
          lambda c: m(c, [b"cat", b"dog", b"Cat", b"cow", b"do"], r"(?i)c(at|ow)|[d]o+g?"))
    g.add(op, "utf8", lambda c: m(c, ["\u00e9t\u00e9".encode(), b"ete", "\u00e9".encode()],
                                  r"\pL+"))
    g.add(op, "empty", lambda c: m(c, np.zeros([0, 2], object), "a"))
    g.add(op, "bad_pattern", lambda c: m(c, [b"a"], "(a"))


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
                    init=[init.name, save, clobber.name, sd.restore_op_name], scratch=True,
                    scratch_outputs=["model.index", "model.data-00000-of-00001"])
    for op in ("SaveV2", "RestoreV2"):
        g.add(op, "saver", lambda c: saver_case(c, False), golden=True,
              note="tf.compat.v1.train.Saver: save, clobber, restore")
    for op in ("MergeV2Checkpoints", "ShardedFilename", "StringJoin", "StaticRegexFullMatch"):
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

    def partitioned_saver(c):
        with v1.variable_scope("model"):
            p = v1.get_variable("emb", [6, 2], initializer=v1.ones_initializer(),
                                partitioner=v1.fixed_size_partitioner(3),
                                use_resource=False)
            q = v1.get_variable("cols", [2, 4], initializer=v1.ones_initializer(),
                                partitioner=v1.fixed_size_partitioner(2, axis=1),
                                use_resource=False)
        saver = v1.train.Saver([p, q])
        init = v1.global_variables_initializer()
        parts = list(p) + list(q)
        fill = tf.group(*[v1.assign(part, tf.constant(
            np.arange(4, dtype=np.float32).reshape(2, 2) + 10 * i))
            for i, part in enumerate(parts)], name="fill")
        clobber = tf.group(*[v1.assign(part, tf.zeros_like(part)) for part in parts],
                           name="clobber")
        sd = saver.saver_def
        return Spec(fetches=[tf.identity(p.as_tensor()), tf.identity(q.as_tensor())],
                    init=[init.name, fill.name, sd.save_tensor_name.split(":")[0],
                          clobber.name,
                          sd.restore_op_name], scratch=True,
                    scratch_outputs=["model.index", "model.data-00000-of-00001"])
    g.add("SaveV2", "partitioned_saver", partitioned_saver, golden=True,
          note="tf.compat.v1 partitioned variables saved as slices "
               "by a Saver, clobbered and restored; the files compared byte for byte")

    checkpoint_interop(g)

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


def _interop_tensors():
    """One small tensor per savable dtype (names sort differently from the
    order they are saved in)."""
    return [
        ("f32", np.array([[1.5, -2.0], [0.0, -0.0]], np.float32)),
        ("f64", np.array([np.pi, -1e300])),
        ("f16", np.array([1.0, -2.5, 65504.0], np.float16)),
        ("bf16", (np.array([1.0, -3.0], np.float32), tf.bfloat16)),
        ("i8", np.array([-128, 127], np.int8)),
        ("i16", np.array([-32768, 7], np.int16)),
        ("i32", np.array([[1, -2], [3, 2147483647]], np.int32)),
        ("i64", np.array([-2**63, 42], np.int64)),
        ("u8", np.array([0, 255], np.uint8)),
        ("u16", np.array([65535], np.uint16)),
        ("u32", np.array([4294967295], np.uint32)),
        ("u64", np.array([2**64 - 1], np.uint64)),
        ("c64", np.array([1 + 2j], np.complex64)),
        ("c128", np.array([2 - 1j], np.complex128)),
        ("bool", np.array([True, False])),
        ("str", np.array([[b"hello", b""], [b"x" * 200, b"\x00\xff"]], object)),
        ("str_scalar", np.array(b"s", object)),
        ("empty", np.zeros([0, 3], np.float32)),
        ("empty_str", np.zeros([0], object)),
    ]


def _const(value):
    """A tensor from an ndarray or an (ndarray, dtype) pair."""
    if isinstance(value, tuple):
        return tf.constant(value[0], value[1])
    return tf.constant(value)


def _eager_save(prefix, names, values, slices=None):
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                      shape_and_slices=slices or [""] * len(names),
                      tensors=[_const(v) for v in values])


# (name, shape_and_slice, value): a [4, 3] float tensor in two row slices
# and an int64 [2, 4] tensor in two column slices, as partitioned variables
# save them, and a whole string tensor.
_SLICED = [
    ("part", "4 3 0,1:-", np.arange(3, dtype=np.float32).reshape(1, 3)),
    ("part", "4 3 1,3:-", np.arange(3, 12, dtype=np.float32).reshape(3, 3)),
    ("cols", "2 4 -:0,3", np.array([[0, 10, 20], [40, 50, 60]], np.int64)),
    ("cols", "2 4 -:3,1", np.array([[30], [70]], np.int64)),
    ("whole", "", np.array([b"a", b"bc"], object)),
]


def checkpoint_interop(g):
    """Checkpoints crossing between TensorFlow and stepflow: stepflow
    restores files TensorFlow wrote (scratch inputs written here by
    TensorFlow's own kernels), and what stepflow writes is compared byte
    for byte with what TensorFlow writes (scratch outputs), so TensorFlow
    reads stepflow's checkpoints as it reads its own."""
    named = _interop_tensors()
    names = [n for n, _ in named]
    dtypes = [v[1] if isinstance(v, tuple) else tf.as_dtype(v.dtype) for _, v in named]
    dtypes = [tf.string if d == tf.as_dtype(object) else d for d in dtypes]

    def restore(c, prefix, names, dtypes, slices=None):
        r = raw.RestoreV2(prefix=tf.constant(prefix), tensor_names=tf.constant(names),
                          shape_and_slices=tf.constant(slices or [""] * len(names)),
                          dtypes=dtypes, name="restore")
        return list(r)

    g.add("RestoreV2", "tf_written_all_dtypes",
          lambda c: Spec(fetches=restore(c, "tf_ckpt", names, dtypes), scratch=True,
                         scratch_setup=lambda d: _eager_save(
                             os.path.join(d, "tf_ckpt"), names, [v for _, v in named])),
          golden=True, note="restores every dtype from a checkpoint TensorFlow wrote")

    def sliced_setup(d):
        _eager_save(os.path.join(d, "tf_ckpt"), [n for n, _, _ in _SLICED],
                    [v for _, _, v in _SLICED], [s for _, s, _ in _SLICED])
    g.add("RestoreV2", "tf_written_slices",
          lambda c: Spec(fetches=restore(
              c, "tf_ckpt", ["part", "part", "part", "cols", "cols", "whole", "whole"],
              [tf.float32, tf.float32, tf.float32, tf.int64, tf.int64, tf.string, tf.string],
              ["", "4 3 0,2:1,2", "4 3 1,3:-", "", "2 4 -:2,2", "", "2 0,2"]),
              scratch=True, scratch_setup=sliced_setup), golden=True,
          note="whole tensors and slices assembled from a TensorFlow checkpoint "
               "of partitioned tensors")
    for case, spec, note in (
            ("tf_written_string_slice", "2 1,1", "part of a string tensor: unsupported"),
            ("tf_written_uncovered", "4 3 0,2:-", None)):
        g.add("RestoreV2", case,
              lambda c, spec=spec: Spec(fetches=restore(
                  c, "tf_ckpt", ["whole" if spec.startswith("2") else "part"],
                  [tf.string if spec.startswith("2") else tf.float32], [spec]),
                  scratch=True, scratch_setup=lambda d: _eager_save(
                      os.path.join(d, "tf_ckpt"), ["whole", "part"],
                      [_SLICED[4][2], _SLICED[1][2]], ["", "4 3 1,3:-"])),
              note=note or "rows 0..1 of a tensor saved as rows 1..3 only")

    def sharded_setup(d):
        tmp = os.path.join(d, "tmp")
        _eager_save(os.path.join(tmp, "part-00000-of-00002"), ["a", "c"],
                    [np.array([1.0, 2.0], np.float32), np.int64(3)])
        _eager_save(os.path.join(tmp, "part-00001-of-00002"), ["b"],
                    [np.array([[b"s0"], [b"s1"]], object)])
        tf.raw_ops.MergeV2Checkpoints(
            checkpoint_prefixes=[os.path.join(tmp, "part-00000-of-00002"),
                                 os.path.join(tmp, "part-00001-of-00002")],
            destination_prefix=os.path.join(d, "tf_ckpt"))
    g.add("RestoreV2", "tf_written_sharded",
          lambda c: Spec(fetches=restore(c, "tf_ckpt", ["b", "a", "c"],
                                         [tf.string, tf.float32, tf.int64]),
                         scratch=True, scratch_setup=sharded_setup),
          note="a two-shard checkpoint TensorFlow merged")

    files = ["ckpt.index", "ckpt.data-00000-of-00001"]

    def save_bytes(c, names, values, slices=None):
        save = raw.SaveV2(prefix=tf.constant("ckpt"), tensor_names=tf.constant(names),
                          shape_and_slices=tf.constant(slices or [""] * len(names)),
                          tensors=[_const(v) for v in values], name="save")
        return Spec(targets=[save], scratch=True, scratch_outputs=files)
    g.add("SaveV2", "bytes_all_dtypes",
          lambda c: save_bytes(c, names, [v for _, v in named]), golden=True,
          note="the files SaveV2 writes, compared byte for byte")
    many = ["layer_%03d/kernel" % i for i in range(400)]
    g.add("SaveV2", "bytes_many_tensors",
          lambda c: save_bytes(c, many, [np.float32(i) for i in range(len(many))]),
          note="an index of several table blocks, byte for byte")
    g.add("SaveV2", "bytes_slices",
          lambda c: save_bytes(c, [n for n, _, _ in _SLICED], [v for _, _, v in _SLICED],
                               [s for _, s, _ in _SLICED]),
          note="a save of partitioned tensors, compared byte for byte")

    def merge_bytes(c):
        s1 = raw.SaveV2(prefix=tf.constant("tmp/part-00000-of-00002"),
                        tensor_names=tf.constant(["part", "a"]),
                        shape_and_slices=tf.constant(["4 3 0,1:-", ""]),
                        tensors=[tf.constant(_SLICED[0][2]), tf.constant([1.0, 2.0])])
        s2 = raw.SaveV2(prefix=tf.constant("tmp/part-00001-of-00002"),
                        tensor_names=tf.constant(["part", "b"]),
                        shape_and_slices=tf.constant(["4 3 1,3:-", ""]),
                        tensors=[tf.constant(_SLICED[1][2]), tf.constant([b"x"])])
        m = raw.MergeV2Checkpoints(
            checkpoint_prefixes=tf.constant(["tmp/part-00000-of-00002",
                                             "tmp/part-00001-of-00002"]),
            destination_prefix=tf.constant("ckpt"))
        return Spec(init=[s1, s2], targets=[m], scratch=True,
                    scratch_outputs=["ckpt.index", "ckpt.data-00000-of-00002",
                                     "ckpt.data-00001-of-00002"])
    g.add("MergeV2Checkpoints", "bytes_sharded_slices", merge_bytes, golden=True,
          note="merging parts that hold slices of one tensor, byte for byte")
