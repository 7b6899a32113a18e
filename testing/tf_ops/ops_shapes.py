"""Op cases for shape inference at import: inputs of static or partially
known shape (where a shape function works out dimensions from constants,
attrs and other inputs) and GraphDefs TensorFlow's importer refuses for
their shapes (a placeholder's static shape set in the GraphDef, since
TensorFlow's Python layer refuses to build them).

The families' own cases mostly feed inputs of unknown shape; these are the
shape paths those leave out. Each function adds cases to a Generator
(op_case_lib).
"""

from op_case_lib import Spec, raw
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def _in(c, dtype, value_shape, shape=None, kind="any", name=None):
    """A placeholder of (partial) shape `shape`, default static, fed
    fixed-seed values of `value_shape`."""
    value = c.rand(dtype, value_shape, kind)
    p = v1.placeholder(dtype, shape=value_shape if shape is None else shape,
                       name=name)
    c.feeds[p.name] = value
    return p


def _refused(y, shapes):
    """Fetches `y` from a GraphDef whose placeholders get `shapes` (name ->
    static shape) before it is written."""
    def edit(graph_def):
        for n in graph_def.node:
            if n.name in shapes:
                n.attr["shape"].shape.CopyFrom(
                    tf.TensorShape(shapes[n.name]).as_proto())
    return Spec(fetches=list(y) if isinstance(y, (list, tuple)) else [y],
                edit=edit)


def _feed(c, dtype, value_shape, name):
    """A placeholder of unknown shape fed values of `value_shape`."""
    return _in(c, dtype, value_shape, shape=tf.TensorShape(None), name=name)


def conv_pool_3d(g):
    g.add("Conv3D", "partial_same_strided", lambda c: raw.Conv3D(
        input=_in(c, tf.float32, [1, 5, 6, 7, 2], [None, 5, 6, None, 2]),
        filter=_in(c, tf.float32, [2, 3, 2, 2, 3]),
        strides=[1, 2, 1, 2, 1], padding="SAME"))
    g.add("Conv3D", "refused_depth", lambda c: _refused(raw.Conv3D(
        input=_feed(c, tf.float32, [1, 4, 4, 4, 3], "x"),
        filter=_feed(c, tf.float32, [2, 2, 2, 2, 4], "f"),
        strides=[1, 1, 1, 1, 1], padding="VALID"),
        {"x": [1, 4, 4, 4, 3], "f": [2, 2, 2, 2, 4]}))
    g.add("MaxPool3D", "partial_valid", lambda c: raw.MaxPool3D(
        input=_in(c, tf.float32, [2, 4, 6, 6, 2], [None, None, 6, 6, 2]),
        ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="VALID"))
    g.add("AvgPool3D", "static_same", lambda c: raw.AvgPool3D(
        input=_in(c, tf.float32, [1, 3, 5, 4, 2]),
        ksize=[1, 2, 3, 2, 1], strides=[1, 2, 2, 1, 1], padding="SAME"))
    g.add("MaxPool3D", "refused_window", lambda c: _refused(raw.MaxPool3D(
        input=_feed(c, tf.float32, [1, 2, 2, 2, 1], "x"),
        ksize=[1, 3, 3, 3, 1], strides=[1, 1, 1, 1, 1], padding="VALID"),
        {"x": [1, 2, 2, 2, 1]}))
    g.add("MaxPoolV2", "constant_window", lambda c: raw.MaxPoolV2(
        input=_in(c, tf.float32, [2, 6, 5, 3], [None, 6, 5, 3]),
        ksize=tf.constant([1, 2, 2, 1]), strides=tf.constant([1, 2, 1, 1]),
        padding="VALID"))
    g.add("MaxPoolWithArgmax", "static", lambda c: raw.MaxPoolWithArgmax(
        input=_in(c, tf.float32, [1, 5, 4, 2]), ksize=[1, 2, 2, 1],
        strides=[1, 2, 2, 1], padding="SAME"))


def blocks(g):
    g.add("SpaceToBatchND", "partial", lambda c: raw.SpaceToBatchND(
        input=_in(c, tf.float32, [1, 4, 6, 3], [None, 4, 6, 3]),
        block_shape=tf.constant([2, 3]),
        paddings=tf.constant([[0, 0], [0, 0]])))
    g.add("SpaceToBatchND", "static_padded", lambda c: raw.SpaceToBatchND(
        input=_in(c, tf.float32, [2, 3, 5, 1]),
        block_shape=tf.constant([2, 2]),
        paddings=tf.constant([[1, 0], [0, 1]])))
    g.add("SpaceToBatchND", "refused_indivisible", lambda c: _refused(
        raw.SpaceToBatchND(input=_feed(c, tf.float32, [1, 5, 6, 1], "x"),
                           block_shape=tf.constant([2, 2]),
                           paddings=tf.constant([[0, 0], [0, 0]])),
        {"x": [1, 5, 6, 1]}))
    g.add("BatchToSpaceND", "static_cropped", lambda c: raw.BatchToSpaceND(
        input=_in(c, tf.float32, [8, 2, 3, 1]),
        block_shape=tf.constant([2, 2]),
        crops=tf.constant([[0, 1], [1, 0]])))
    g.add("BatchToSpaceND", "refused_batch", lambda c: _refused(
        raw.BatchToSpaceND(input=_feed(c, tf.float32, [6, 2, 2, 1], "x"),
                           block_shape=tf.constant([2, 2]),
                           crops=tf.constant([[0, 0], [0, 0]])),
        {"x": [6, 2, 2, 1]}))
    g.add("SpaceToBatch", "static", lambda c: raw.SpaceToBatch(
        input=_in(c, tf.float32, [1, 4, 4, 2]),
        paddings=tf.constant([[0, 0], [0, 2]]), block_size=2))
    g.add("BatchToSpace", "static", lambda c: raw.BatchToSpace(
        input=_in(c, tf.float32, [4, 2, 2, 1]),
        crops=tf.constant([[0, 0], [1, 1]]), block_size=2))
    g.add("DepthToSpace", "partial", lambda c: raw.DepthToSpace(
        input=_in(c, tf.float32, [1, 2, 3, 8], [None, 2, 3, 8]),
        block_size=2))
    g.add("DepthToSpace", "refused_depth", lambda c: _refused(
        raw.DepthToSpace(input=_feed(c, tf.float32, [1, 2, 2, 6], "x"),
                         block_size=2), {"x": [1, 2, 2, 6]}))
    g.add("SpaceToDepth", "refused_height", lambda c: _refused(
        raw.SpaceToDepth(input=_feed(c, tf.float32, [1, 3, 4, 1], "x"),
                         block_size=2), {"x": [1, 3, 4, 1]}))
    g.add("SpaceToDepth", "partial", lambda c: raw.SpaceToDepth(
        input=_in(c, tf.float32, [2, 4, 6, 3], [None, 4, 6, None]),
        block_size=2))


def index(g):
    g.add("GatherNd", "partial", lambda c: raw.GatherNd(
        params=_in(c, tf.float32, [2, 3, 4], [None, 3, 4]),
        indices=tf.constant([[0, 1], [1, 2], [1, 0]])))
    g.add("GatherNd", "refused_index_depth", lambda c: _refused(raw.GatherNd(
        params=_feed(c, tf.float32, [2, 3], "params"),
        indices=tf.constant([[0, 1, 0]])), {"params": [2, 3]}))
    g.add("ScatterNd", "constant_shape", lambda c: raw.ScatterNd(
        indices=tf.constant([[1], [3], [0]]),
        updates=_in(c, tf.float32, [3, 4], [None, 4]),
        shape=tf.constant([5, 4])))
    g.add("ScatterNd", "refused_updates", lambda c: _refused(raw.ScatterNd(
        indices=tf.constant([[1], [3], [0]]),
        updates=_feed(c, tf.float32, [3, 5], "updates"),
        shape=tf.constant([5, 4])), {"updates": [3, 5]}))
    g.add("TensorScatterUpdate", "refused_updates", lambda c: _refused(
        raw.TensorScatterUpdate(
            tensor=_feed(c, tf.float32, [5, 4], "tensor"),
            indices=tf.constant([[1], [3]]),
            updates=_feed(c, tf.float32, [2, 3], "updates")),
        {"tensor": [5, 4], "updates": [2, 3]}))
    g.add("DynamicStitch", "constant_indices", lambda c: raw.DynamicStitch(
        indices=[tf.constant([0, 2]), tf.constant([[1], [3]])],
        data=[_in(c, tf.float32, [2, 3], [2, None]),
              _in(c, tf.float32, [2, 1, 3], [None, 1, 3])]))
    g.add("UnsortedSegmentSum", "partial", lambda c: raw.UnsortedSegmentSum(
        data=_in(c, tf.float32, [4, 3], [None, 3]),
        segment_ids=_in(c, tf.int32, [4], kind="small"),
        num_segments=tf.constant(5)))
    g.add("SegmentSum", "static", lambda c: raw.SegmentSum(
        data=_in(c, tf.float32, [4, 2, 3]),
        segment_ids=tf.constant([0, 0, 1, 2])))
    g.add("UniqueV2", "constant_axis", lambda c: raw.UniqueV2(
        x=_in(c, tf.int32, [2, 3], kind="small"), axis=tf.constant([1])))
    g.add("UniqueV2", "refused_axis_range", lambda c: _refused(raw.UniqueV2(
        x=_feed(c, tf.int32, [2, 3], "x"), axis=tf.constant([2])),
        {"x": [2, 3]}))
    g.add("NthElement", "refused_n", lambda c: _refused(raw.NthElement(
        input=_feed(c, tf.float32, [2, 3], "x"), n=tf.constant(3)),
        {"x": [2, 3]}))
    g.add("ListDiff", "static", lambda c: raw.ListDiff(
        x=_in(c, tf.int32, [6], kind="small"),
        y=_in(c, tf.int32, [2], kind="small")))


def layout(g):
    g.add("Bitcast", "static_narrower", lambda c: raw.Bitcast(
        input=_in(c, tf.int32, [3, 2]), type=tf.uint8))
    g.add("Bitcast", "static_wider", lambda c: raw.Bitcast(
        input=_in(c, tf.int8, [3, 4], [None, 4]), type=tf.int32))
    g.add("Bitcast", "refused_last_dim", lambda c: _refused(raw.Bitcast(
        input=_feed(c, tf.int8, [3, 3], "x"), type=tf.int32), {"x": [3, 3]}))
    g.add("ReverseSequence", "refused_negative_batch_dim", lambda c: _refused(
        raw.ReverseSequence(input=_feed(c, tf.float32, [2, 3], "x"),
                            seq_lengths=tf.constant([1, 2], tf.int64),
                            seq_dim=1, batch_dim=-2), {"x": [2, 3]}))
    g.add("ReverseSequence", "partial", lambda c: raw.ReverseSequence(
        input=_in(c, tf.float32, [2, 3, 4], [None, 3, None]),
        seq_lengths=tf.constant([1, 2], tf.int64), seq_dim=1, batch_dim=0))
    g.add("MirrorPadGrad", "static", lambda c: raw.MirrorPadGrad(
        input=_in(c, tf.float32, [5, 6]),
        paddings=tf.constant([[1, 1], [2, 0]]), mode="REFLECT"))
    g.add("Roll", "refused_shift_axis", lambda c: _refused(raw.Roll(
        input=_feed(c, tf.float32, [2, 3], "x"),
        shift=_feed(c, tf.int32, [2], "shift"),
        axis=_feed(c, tf.int32, [3], "axis")),
        {"shift": [2], "axis": [3]}))


def linalg(g):
    g.add("MatrixDiagV3", "band_static", lambda c: raw.MatrixDiagV3(
        diagonal=_in(c, tf.float32, [2, 2, 3]), k=tf.constant([-1, 0]),
        num_rows=tf.constant(-1), num_cols=tf.constant(-1),
        padding_value=tf.constant(0.0)))
    g.add("MatrixDiagV3", "rows_given", lambda c: raw.MatrixDiagV3(
        diagonal=_in(c, tf.float32, [3]), k=tf.constant(1),
        num_rows=tf.constant(3), num_cols=tf.constant(-1),
        padding_value=tf.constant(0.0)))
    g.add("MatrixDiagPartV3", "band_static", lambda c: raw.MatrixDiagPartV3(
        input=_in(c, tf.float32, [2, 3, 4], [None, 3, 4]),
        k=tf.constant([-1, 1]), padding_value=tf.constant(0.0)))
    g.add("MatrixDiagPartV3", "refused_bound", lambda c: _refused(
        raw.MatrixDiagPartV3(input=_feed(c, tf.float32, [3, 4], "x"),
                             k=tf.constant(5), padding_value=tf.constant(0.0)),
        {"x": [3, 4]}))
    g.add("MatrixSetDiagV3", "partial", lambda c: raw.MatrixSetDiagV3(
        input=_in(c, tf.float32, [2, 3, 4], [None, 3, 4]),
        diagonal=_in(c, tf.float32, [2, 3], [2, None]), k=tf.constant(0)))
    g.add("MatrixTriangularSolve", "static_broadcast_batch",
          lambda c: raw.MatrixTriangularSolve(
              matrix=tf.eye(3, batch_shape=[2, 1]) * 2.0,
              rhs=_in(c, tf.float32, [1, 4, 3, 2])))
    g.add("MatrixSolve", "refused_rows", lambda c: _refused(raw.MatrixSolve(
        matrix=_feed(c, tf.float32, [3, 3], "a"),
        rhs=_feed(c, tf.float32, [4, 2], "b")), {"a": [3, 3], "b": [4, 2]}))
    g.add("Qr", "partial_full", lambda c: raw.Qr(
        input=_in(c, tf.float32, [2, 4, 3], [None, 4, 3]),
        full_matrices=True))
    g.add("Svd", "partial_reduced", lambda c: raw.Svd(
        input=_in(c, tf.float32, [3, 5], [3, None]), compute_uv=True))
    g.add("Einsum", "refused_rank", lambda c: _refused(raw.Einsum(
        inputs=[_feed(c, tf.float32, [2, 3, 4], "a"),
                _feed(c, tf.float32, [3, 4], "b")],
        equation="ab,bc->ac"), {"a": [2, 3, 4], "b": [3, 4]}))


def misc(g):
    g.add("CropAndResize", "static", lambda c: raw.CropAndResize(
        image=_in(c, tf.float32, [2, 8, 8, 3]),
        boxes=_in(c, tf.float32, [5, 4], kind="unit"),
        box_ind=tf.constant([0, 1, 0, 1, 1]),
        crop_size=tf.constant([3, 4])))
    g.add("NonMaxSuppressionV4", "static_padded", lambda c: raw.NonMaxSuppressionV4(
        boxes=_in(c, tf.float32, [6, 4], kind="unit"),
        scores=_in(c, tf.float32, [6]),
        max_output_size=tf.constant(3), iou_threshold=tf.constant(0.5),
        score_threshold=tf.constant(-10.0), pad_to_max_output_size=True))
    g.add("DenseBincount", "constant_size", lambda c: raw.DenseBincount(
        input=_in(c, tf.int32, [2, 5], [None, 5], kind="small"),
        size=tf.constant(4), weights=tf.zeros([0])))
    g.add("Bincount", "constant_size", lambda c: raw.Bincount(
        arr=_in(c, tf.int32, [5], kind="small"), size=tf.constant(4),
        weights=tf.zeros([0])))
    g.add("BroadcastArgs", "static", lambda c: raw.BroadcastArgs(
        s0=_in(c, tf.int32, [2], kind="pos"),
        s1=tf.constant([1, 1, 1])))
    g.add("Betainc", "scalar_and_partial", lambda c: raw.Betainc(
        a=_in(c, tf.float32, [], kind="pos"),
        b=_in(c, tf.float32, [2, 3], [None, 3], kind="pos"),
        x=tf.constant(0.5)))


def generate(g):
    conv_pool_3d(g)
    blocks(g)
    index(g)
    layout(g)
    linalg(g)
    misc(g)
