"""Op cases for the Example parsing ops: ParseExampleV2 (as tf.io.parse_example
and tf.io.parse_single_example build it), ParseExample and ParseSingleExample
(raw), on serialized tf.train.Example protos: dense features with and without
defaults, variable-length dense (FixedLenSequenceFeature), sparse and ragged
features, scalar and batched inputs, and the errors TensorFlow reports
(missing required features, wrong sizes, wrong types, unparseable bytes).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import raw
import numpy as np
import tensorflow as tf


def _feature(v):
    if v is None:
        return tf.train.Feature()
    if len(v) and isinstance(v[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    if len(v) and isinstance(v[0], int):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Feature(bytes_list=tf.train.BytesList(
        value=[x.encode() if isinstance(x, str) else x for x in v]))


def example(**features):
    f = {k: _feature(v) for k, v in features.items()}
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


BATCH = [
    example(age=[29], scores=[1.5, 2.5], name=["alice"], tags=["a", "b"], ids=[1, 2, 3],
            w=[0.5], seq=[1, 2, 3, 4]),
    example(age=[41], scores=[0.25, -1.0], name=["bób"], tags=[], ids=[7], seq=[5, 6]),
    example(age=[3], scores=[3.0, 4.0], name=["日本"], tags=["c"], w=[1.0, 2.0, 3.0]),
]


def _flatten(parsed):
    out = []
    for key in sorted(parsed):
        v = parsed[key]
        if isinstance(v, tf.SparseTensor):
            out += [v.indices, v.values, v.dense_shape]
        elif isinstance(v, tf.RaggedTensor):
            out += [v.values, v.row_splits]
        else:
            out.append(v)
    return out


def parse_example_v2(g):
    op = "ParseExampleV2"

    def pe(c, features, batch=BATCH):
        s = c.feed(np.array(batch, dtype=object), static=True)
        return _flatten(tf.io.parse_example(s, features))
    g.add(op, "dense", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.int64),
        "scores": tf.io.FixedLenFeature([2], tf.float32),
        "name": tf.io.FixedLenFeature([1], tf.string)}), golden=True)
    g.add(op, "dense_2d", lambda c: pe(c, {
        "scores": tf.io.FixedLenFeature([1, 2], tf.float32)}))
    g.add(op, "dense_default", lambda c: pe(c, {
        "ids": tf.io.FixedLenFeature([1], tf.int64, default_value=[-1])}, BATCH[2:] + [
            example(ids=[4])]))
    g.add(op, "dense_default_string", lambda c: pe(c, {
        "missing": tf.io.FixedLenFeature([2], tf.string, default_value=["x", "y"]),
        "age": tf.io.FixedLenFeature([], tf.int64)}))
    g.add(op, "sparse", lambda c: pe(c, {
        "tags": tf.io.VarLenFeature(tf.string), "ids": tf.io.VarLenFeature(tf.int64),
        "w": tf.io.VarLenFeature(tf.float32)}), golden=True)
    g.add(op, "sparse_absent_everywhere", lambda c: pe(c, {
        "nothing": tf.io.VarLenFeature(tf.float32)}))
    for splits in (tf.int32, tf.int64):
        g.add(op, "ragged_" + splits.name, lambda c, splits=splits: pe(c, {
            "ids": tf.io.RaggedFeature(tf.int64, row_splits_dtype=splits),
            "tags": tf.io.RaggedFeature(tf.string, row_splits_dtype=splits)}),
            golden=(splits == tf.int64))
    g.add(op, "varlen_dense", lambda c: pe(c, {
        "ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True,
                                             default_value=-1),
        "tags": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True)}),
        golden=True)
    g.add(op, "varlen_dense_stride", lambda c: pe(c, {
        "seq": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}))
    g.add(op, "varlen_dense_bad_stride", lambda c: pe(c, {
        "ids": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}))
    g.add(op, "all_kinds", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.int64),
        "tags": tf.io.VarLenFeature(tf.string),
        "ids": tf.io.RaggedFeature(tf.int64),
        "w": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}))
    g.add(op, "missing_required", lambda c: pe(c, {
        "w": tf.io.FixedLenFeature([1], tf.float32)}))
    g.add(op, "wrong_count", lambda c: pe(c, {
        "ids": tf.io.FixedLenFeature([1], tf.int64, default_value=[0])}))
    g.add(op, "wrong_type_dense", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.float32)}))
    g.add(op, "wrong_type_sparse", lambda c: pe(c, {
        "tags": tf.io.VarLenFeature(tf.int64)}))
    g.add(op, "wrong_type_ragged", lambda c: pe(c, {
        "ids": tf.io.RaggedFeature(tf.float32)}))
    g.add(op, "unparseable", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.int64, default_value=0)},
        [BATCH[0], b"\xff\xff not a proto"]))
    g.add(op, "empty_batch", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.int64, default_value=0),
        "tags": tf.io.VarLenFeature(tf.string),
        "ids": tf.io.RaggedFeature(tf.int64)}, np.zeros([0], object)))
    g.add(op, "empty_examples", lambda c: pe(c, {
        "age": tf.io.FixedLenFeature([], tf.int64, default_value=5),
        "tags": tf.io.VarLenFeature(tf.string)}, [b"", example()]))
    g.add(op, "kindless_feature", lambda c: pe(c, {
        "e": tf.io.VarLenFeature(tf.float32), "r": tf.io.RaggedFeature(tf.int64)},
        [example(e=None, r=None), example(e=[1.0], r=[2])]))
    g.add(op, "kindless_dense", lambda c: pe(c, {
        "e": tf.io.FixedLenFeature([1], tf.float32, default_value=[0.0])},
        [example(e=None)]))

    def single(c, features, serialized=BATCH[0]):
        return _flatten(tf.io.parse_single_example(
            c.feed(np.array(serialized, object), static=True), features))
    g.add(op, "scalar", lambda c: single(c, {
        "age": tf.io.FixedLenFeature([], tf.int64),
        "tags": tf.io.VarLenFeature(tf.string),
        "scores": tf.io.FixedLenFeature([2], tf.float32)}), golden=True)
    g.add(op, "scalar_ragged", lambda c: single(c, {
        "ids": tf.io.RaggedFeature(tf.int64)}))
    g.add(op, "scalar_varlen", lambda c: single(c, {
        "ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}))
    g.add(op, "scalar_missing", lambda c: single(c, {
        "nope": tf.io.FixedLenFeature([], tf.int64)}))

    def named(c):
        s = c.feed(np.array(BATCH, object))
        names = c.feed(np.array([b"first", b"second", b"third"], object))
        out = raw.ParseExampleV2(
            serialized=s, names=names, sparse_keys=tf.constant([], tf.string),
            dense_keys=tf.constant(["w"]), ragged_keys=tf.constant([], tf.string),
            dense_defaults=[tf.constant([], tf.float32)], num_sparse=0, sparse_types=[],
            ragged_value_types=[], ragged_split_types=[], dense_shapes=[[1]])
        return out.dense_values
    g.add(op, "names_missing_required", named)

    def ragged_raw(c, serialized, splits):
        out = raw.ParseExampleV2(
            serialized=c.feed(np.array(serialized, object)), names=tf.constant([], tf.string),
            sparse_keys=tf.constant([], tf.string), dense_keys=tf.constant([], tf.string),
            ragged_keys=tf.constant(["ids", "tags"]), dense_defaults=[], num_sparse=0,
            sparse_types=[], ragged_value_types=[tf.int64, tf.string],
            ragged_split_types=[splits, splits], dense_shapes=[])
        return list(out.ragged_values) + list(out.ragged_row_splits)
    g.add(op, "ragged_raw_scalar", lambda c: ragged_raw(c, BATCH[0], tf.int32))
    g.add(op, "ragged_raw_batch", lambda c: ragged_raw(c, BATCH, tf.int64))

    def serialized_rank2(c):
        s = c.feed(np.array([BATCH[:2]], object))
        out = raw.ParseExampleV2(
            serialized=s, names=tf.constant([], tf.string),
            sparse_keys=tf.constant([], tf.string), dense_keys=tf.constant(["age"]),
            ragged_keys=tf.constant([], tf.string),
            dense_defaults=[tf.constant(0, tf.int64)], num_sparse=0, sparse_types=[],
            ragged_value_types=[], ragged_split_types=[], dense_shapes=[[]])
        return out.dense_values
    g.add(op, "serialized_rank2", serialized_rank2)


def parse_example_v1(g):
    op = "ParseExample"

    def pe(c, sparse, dense, batch=BATCH):
        s = c.feed(np.array(batch, object))
        out = raw.ParseExample(
            serialized=s, names=tf.constant([], tf.string),
            sparse_keys=[tf.constant(k) for k, _ in sparse],
            dense_keys=[tf.constant(k) for k, _, _, _ in dense],
            dense_defaults=[tf.constant(d, t) for _, t, _, d in dense],
            sparse_types=[t for _, t in sparse], dense_shapes=[sh for _, _, sh, _ in dense])
        return (list(out.sparse_indices) + list(out.sparse_values) +
                list(out.sparse_shapes) + list(out.dense_values))
    g.add(op, "mixed", lambda c: pe(
        c, [("tags", tf.string), ("ids", tf.int64)],
        [("age", tf.int64, [], []), ("scores", tf.float32, [2], []),
         ("w2", tf.float32, [2], [9.0, 8.0])]), golden=True)
    g.add(op, "varlen_dense", lambda c: pe(
        c, [], [("ids", tf.int64, [None], 0)]))
    g.add(op, "missing_required", lambda c: pe(c, [], [("w", tf.float32, [1], [])]))
    g.add(op, "bad_default_shape", lambda c: pe(c, [], [("w", tf.float32, [1], [1.0, 2.0])]))
    g.add(op, "empty_batch", lambda c: pe(c, [("tags", tf.string)],
                                          [("age", tf.int64, [], 3)], np.zeros([0], object)))

    def scalar_input(c):
        s = c.feed(np.array(BATCH[0], object))
        out = raw.ParseExample(serialized=s, names=tf.constant([], tf.string),
                               sparse_keys=[], dense_keys=[tf.constant("age")],
                               dense_defaults=[tf.constant([], tf.int64)], sparse_types=[],
                               dense_shapes=[[]])
        return list(out.dense_values)
    g.add(op, "scalar_serialized", scalar_input)


def parse_single_example(g):
    op = "ParseSingleExample"

    def ps(c, serialized, sparse, dense):
        out = raw.ParseSingleExample(
            serialized=c.feed(np.array(serialized, object)),
            dense_defaults=[tf.constant(d, t) for _, t, _, d in dense],
            num_sparse=len(sparse), sparse_keys=[k for k, _ in sparse],
            dense_keys=[k for k, _, _, _ in dense], sparse_types=[t for _, t in sparse],
            dense_shapes=[sh for _, _, sh, _ in dense])
        return (list(out.sparse_indices) + list(out.sparse_values) +
                list(out.sparse_shapes) + list(out.dense_values))
    g.add(op, "mixed", lambda c: ps(
        c, BATCH[1], [("tags", tf.string), ("ids", tf.int64)],
        [("age", tf.int64, [], []), ("w", tf.float32, [2], [0.5, 0.25])]), golden=True)
    g.add(op, "varlen", lambda c: ps(c, BATCH[0], [], [("seq", tf.int64, [None, 2], 0)]))
    g.add(op, "missing_required", lambda c: ps(c, BATCH[1], [], [("w", tf.float32, [1], [])]))
    g.add(op, "not_scalar", lambda c: ps(c, BATCH[:2], [], [("age", tf.int64, [], [])]))
    g.add(op, "unparseable", lambda c: ps(c, b"\x0a\xff", [], [("age", tf.int64, [], 0)]))


def generate(g):
    parse_example_v2(g)
    parse_example_v1(g)
    parse_single_example(g)
