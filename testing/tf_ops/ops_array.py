"""Op cases for the array ops: identities, shapes, reshapes, transposes,
concatenation, packing, splitting, slicing, tiling, Fill, Range, OneHot,
Gather, DynamicStitch, BroadcastArgs, BroadcastGradientArgs, ZerosLike/OnesLike,
placeholders and Const.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import (
    ANY_TYPES,
    DTYPES,
    Spec,
    add_node,
    grads,
    np_type,
    raw,
    set_attr,
    v1,
)
import numpy as np
import tensorflow as tf


def identity_like(g, op):
    """Identity, Snapshot, StopGradient, PreventGradient."""
    f = getattr(raw, op)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: f(input=c.input(DTYPES[t], [2, 3], name="x")),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: f(input=c.input(tf.int32, [], name="x")))
    g.add(op, "empty", lambda c: f(input=c.input(tf.float32, [0, 3], name="x")))
    if op == "Identity":
        g.add(op, "grad_float",
              lambda c: (lambda x: grads(c, [f(input=x)], [x]))(
                  c.input(tf.float32, [2, 3], name="x", static=True)), golden=True)
    if op == "StopGradient":
        g.add(op, "grad_blocked",
              lambda c: (lambda x: grads(c, [f(input=x) * x], [x]))(
                  c.input(tf.float32, [2, 3], name="x", static=True)), golden=True,
              note="the gradient flows through the multiply only")
    if op == "PreventGradient":
        g.add(op, "message",
              lambda c: f(input=c.input(tf.float32, [2], name="x"), message="no grad"))


def identity_n(g):
    op = "IdentityN"
    g.add(op, "mixed",
          lambda c: raw.IdentityN(input=[c.input(tf.float32, [2, 3]), c.input(tf.int32, []),
                                         c.input(tf.string, [2]), c.input(tf.bool, [0])]),
          golden=True)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: raw.IdentityN(input=[c.input(DTYPES[t], [2])]))
    g.add(op, "grad_float",
          lambda c: (lambda x, y: grads(c, raw.IdentityN(input=[x, y]), [x, y]))(
              c.input(tf.float32, [2, 3], static=True), c.input(tf.float32, [3], static=True)),
          golden=True)


def shape_ops(g):
    for op in ("Shape", "Size", "Rank"):
        f = getattr(raw, op)
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, f=f: f(input=c.input(DTYPES[t], [2, 3, 4])),
                  golden=(t == "float"))
        g.add(op, "scalar", lambda c, f=f: f(input=c.input(tf.float32, [])))
        g.add(op, "empty", lambda c, f=f: f(input=c.input(tf.float32, [3, 0])))
        if op != "Rank":
            g.add(op, "out_int64",
                  lambda c, f=f: f(input=c.input(tf.float32, [2, 5]), out_type=tf.int64),
                  golden=True)
    op = "ShapeN"
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: raw.ShapeN(input=[c.input(DTYPES[t], [2, 3]),
                                               c.input(DTYPES[t], [])]),
              golden=(t == "float"))
    g.add(op, "n1_int64",
          lambda c: raw.ShapeN(input=[c.input(tf.int32, [4, 0, 1])], out_type=tf.int64),
          golden=True)
    g.add(op, "n3", lambda c: raw.ShapeN(input=[c.input(tf.float32, [i + 1]) for i in range(3)]))


def reshape(g):
    op = "Reshape"

    def rs(c, shape, new, t="float", tshape=np.int32, static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        s = tf.constant(np.array(new, tshape)) if static else \
            c.feed(np.array(new, tshape), name="shape")
        return x, raw.Reshape(tensor=x, shape=s)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: rs(c, [2, 3], [3, 2], t)[1],
              golden=(t == "float"))
    g.add(op, "infer_dim", lambda c: rs(c, [2, 3, 4], [4, -1])[1], golden=True)
    g.add(op, "to_scalar", lambda c: rs(c, [1, 1], np.zeros([0], np.int32))[1])
    g.add(op, "from_scalar", lambda c: rs(c, [], [1, 1, 1])[1])
    g.add(op, "size_mismatch", lambda c: rs(c, [2, 3], [4, 2])[1], golden=True)
    g.add(op, "two_unknown", lambda c: rs(c, [2, 3], [-1, -1])[1])
    g.add(op, "negative_dim", lambda c: rs(c, [2, 3], [-2, -3])[1])
    g.add(op, "zero_size_infer", lambda c: rs(c, [0, 3], [-1, 3])[1])
    g.add(op, "zero_size_ambiguous", lambda c: rs(c, [0, 3], [0, -1])[1])
    g.add(op, "shape_rank2", lambda c: rs(c, [2, 3], [[6]])[1])
    g.add(op, "int64_shape", lambda c: rs(c, [2, 3], [6], tshape=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, y: grads(c, [y], [x]))(*rs(c, [2, 3], [3, 2], static=True)))


def expand_dims(g):
    op = "ExpandDims"

    def ed(c, shape, dim, t="float", tdim=np.int32):
        return raw.ExpandDims(input=c.input(DTYPES[t], shape, name="x"),
                              axis=c.feed(np.array(dim, tdim), name="dim"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ed(c, [2, 3], 1, t), golden=(t == "float"))
    for d in (0, 2, -1, -3):
        g.add(op, "dim_%d" % d, lambda c, d=d: ed(c, [2, 3], d))
    g.add(op, "dim_out_of_range", lambda c: ed(c, [2, 3], 3), golden=True)
    g.add(op, "dim_too_negative", lambda c: ed(c, [2, 3], -4))
    g.add(op, "dim_vector", lambda c: ed(c, [2, 3], [1]))
    g.add(op, "dim_vector2", lambda c: ed(c, [2, 3], [1, 2]))
    g.add(op, "scalar_input", lambda c: ed(c, [], 0))
    g.add(op, "int64_dim", lambda c: ed(c, [2], 0, tdim=np.int64))
    g.add(op, "grad_float",
          lambda c: (lambda x: grads(c, [raw.ExpandDims(input=x, axis=1)], [x]))(
              c.input(tf.float32, [2, 3], static=True)))


def squeeze(g):
    op = "Squeeze"

    def sq(c, shape, dims=(), t="float"):
        return raw.Squeeze(input=c.input(DTYPES[t], shape, name="x"), axis=list(dims))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sq(c, [1, 2, 1, 3], (), t),
              golden=(t == "float"))
    g.add(op, "dims", lambda c: sq(c, [1, 2, 1, 3], (2,)))
    g.add(op, "negative_dims", lambda c: sq(c, [1, 2, 1, 3], (-2, 0)))
    g.add(op, "not_one", lambda c: sq(c, [1, 2, 1, 3], (1,)), golden=True)
    g.add(op, "out_of_range", lambda c: sq(c, [1, 2], (2,)))
    g.add(op, "all_ones_to_scalar", lambda c: sq(c, [1, 1]))
    g.add(op, "scalar", lambda c: sq(c, []))
    g.add(op, "zero_dim_kept", lambda c: sq(c, [0, 1, 2]))
    g.add(op, "grad_float",
          lambda c: (lambda x: grads(c, [raw.Squeeze(input=x, axis=[0])], [x]))(
              c.input(tf.float32, [1, 3], static=True)))


def transpose(g):
    op = "Transpose"

    def tr(c, shape, perm, t="float", tperm=np.int32):
        return raw.Transpose(x=c.input(DTYPES[t], shape, name="x"),
                             perm=c.feed(np.array(perm, tperm), name="perm"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: tr(c, [2, 3], [1, 0], t), golden=(t == "float"))
    g.add(op, "rank3", lambda c: tr(c, [2, 3, 4], [2, 0, 1]), golden=True)
    g.add(op, "identity_perm", lambda c: tr(c, [2, 3], [0, 1]))
    g.add(op, "rank5", lambda c: tr(c, [2, 1, 3, 2, 2], [4, 2, 0, 3, 1]))
    g.add(op, "scalar", lambda c: tr(c, [], np.zeros([0], np.int32)))
    g.add(op, "empty", lambda c: tr(c, [0, 3], [1, 0]))
    g.add(op, "duplicate_perm", lambda c: tr(c, [2, 3], [0, 0]))
    g.add(op, "perm_wrong_length", lambda c: tr(c, [2, 3], [1, 0, 2]))
    g.add(op, "perm_out_of_range", lambda c: tr(c, [2, 3], [2, 0]))
    g.add(op, "int64_perm", lambda c: tr(c, [2, 3], [1, 0], tperm=np.int64))
    g.add(op, "grad_float",
          lambda c: (lambda x: grads(c, [tf.transpose(x, [1, 0])], [x]))(
              c.input(tf.float32, [2, 3], static=True)))


def concat(g):
    op = "ConcatV2"

    def cc(c, shapes, axis, t="float", tidx=np.int32, static=False):
        xs = [c.input(DTYPES[t], s, name="x%d" % i, static=static)
              for i, s in enumerate(shapes)]
        a = tf.constant(np.array(axis, tidx)) if static else \
            c.feed(np.array(axis, tidx), name="axis")
        return xs, raw.ConcatV2(values=xs, axis=a)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cc(c, [[2, 3], [2, 2]], 1, t)[1],
              golden=(t == "float"))
    g.add(op, "axis0", lambda c: cc(c, [[1, 3], [2, 3]], 0)[1])
    g.add(op, "negative_axis", lambda c: cc(c, [[2, 1], [2, 2]], -1)[1])
    g.add(op, "n3_rank3", lambda c: cc(c, [[2, 1, 2], [2, 3, 2], [2, 0, 2]], 1)[1])
    g.add(op, "shape_mismatch", lambda c: cc(c, [[2, 3], [3, 2]], 1)[1], golden=True)
    g.add(op, "rank_mismatch", lambda c: cc(c, [[2, 3], [3]], 0)[1])
    g.add(op, "axis_out_of_range", lambda c: cc(c, [[2, 3], [2, 3]], 2)[1])
    g.add(op, "scalars", lambda c: cc(c, [[], []], 0)[1])
    g.add(op, "int64_axis", lambda c: cc(c, [[2], [3]], 0, tidx=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda xs, y: grads(c, [y], xs))(
              *cc(c, [[2, 3], [2, 2]], 1, static=True)))


def pack_unpack(g):
    op = "Pack"

    def pk(c, shapes, axis=0, t="float", static=False):
        xs = [c.input(DTYPES[t], s, name="x%d" % i, static=static)
              for i, s in enumerate(shapes)]
        return xs, raw.Pack(values=xs, axis=axis)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: pk(c, [[2, 3]] * 3, 0, t)[1],
              golden=(t == "float"))
    for a in (1, 2, -1, -3):
        g.add(op, "axis_%d" % a, lambda c, a=a: pk(c, [[2, 3]] * 2, a)[1])
    g.add(op, "axis_out_of_range", lambda c: pk(c, [[2, 3]] * 2, 3)[1])
    g.add(op, "shape_mismatch", lambda c: pk(c, [[2, 3], [3, 2]])[1], golden=True)
    g.add(op, "scalars", lambda c: pk(c, [[], [], []])[1])
    g.add(op, "n1", lambda c: pk(c, [[2]])[1])
    g.add(op, "empty", lambda c: pk(c, [[0, 2]] * 2, 1)[1])
    g.add(op, "grad_float",
          lambda c: (lambda xs, y: grads(c, [y], xs))(*pk(c, [[2, 3]] * 2, 1, static=True)))

    op = "Unpack"

    def up(c, shape, num, axis=0, t="float", static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        return x, raw.Unpack(value=x, num=num, axis=axis)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: up(c, [3, 2], 3, 0, t)[1],
              golden=(t == "float"))
    g.add(op, "axis1", lambda c: up(c, [3, 2], 2, 1)[1])
    g.add(op, "negative_axis", lambda c: up(c, [2, 3, 2], 3, -2)[1])
    g.add(op, "num_mismatch", lambda c: up(c, [3, 2], 2)[1], golden=True)
    g.add(op, "axis_out_of_range", lambda c: up(c, [3, 2], 3, 2)[1])
    g.add(op, "scalar", lambda c: up(c, [], 1)[1])
    g.add(op, "zero_num",
          lambda c: (lambda x, ys: Spec(targets=[x.op.outputs[0].consumers()[0]]))(
              *up(c, [0, 2], 0)),
          note="no outputs: run as a target")
    g.add(op, "grad_float",
          lambda c: (lambda x, ys: grads(c, ys, [x]))(*up(c, [3, 2], 3, 0, static=True)))


def split(g):
    op = "Split"

    def sp(c, shape, axis, n, t="float", static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        a = tf.constant(axis) if static else c.feed(np.array(axis, np.int32), name="axis")
        return x, raw.Split(axis=a, value=x, num_split=n)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sp(c, [2, 4], 1, 2, t)[1],
              golden=(t == "float"))
    g.add(op, "axis0_n3", lambda c: sp(c, [3, 2], 0, 3)[1])
    g.add(op, "negative_axis", lambda c: sp(c, [2, 2, 4], -1, 4)[1])
    g.add(op, "n1", lambda c: sp(c, [2, 3], 1, 1)[1])
    g.add(op, "not_divisible", lambda c: sp(c, [2, 3], 1, 2)[1], golden=True)
    g.add(op, "axis_out_of_range", lambda c: sp(c, [2, 4], 2, 2)[1])
    g.add(op, "empty", lambda c: sp(c, [0, 4], 1, 2)[1])
    g.add(op, "scalar", lambda c: sp(c, [], 0, 1)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, ys: grads(c, ys, [x]))(*sp(c, [2, 4], 1, 2, static=True)))

    op = "SplitV"

    def sv(c, shape, sizes, axis, t="float", tlen=np.int32, static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        if static:
            s, a = tf.constant(np.array(sizes, tlen)), tf.constant(axis)
        else:
            s = c.feed(np.array(sizes, tlen), name="sizes")
            a = c.feed(np.array(axis, np.int32), name="axis")
        return x, raw.SplitV(value=x, size_splits=s, axis=a, num_split=len(sizes))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sv(c, [2, 5], [1, 4], 1, t)[1],
              golden=(t == "float"))
    g.add(op, "inferred_size", lambda c: sv(c, [6, 2], [1, -1, 2], 0)[1], golden=True)
    g.add(op, "zero_size_piece", lambda c: sv(c, [2, 3], [0, 3], 1)[1])
    g.add(op, "sum_mismatch", lambda c: sv(c, [2, 5], [1, 3], 1)[1])
    g.add(op, "two_inferred", lambda c: sv(c, [2, 5], [-1, -1], 1)[1])
    g.add(op, "negative_size", lambda c: sv(c, [2, 5], [-2, 7], 1)[1])
    g.add(op, "axis_out_of_range", lambda c: sv(c, [2, 5], [1, 4], -3)[1])
    g.add(op, "int64_sizes", lambda c: sv(c, [4], [1, 3], 0, tlen=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, ys: grads(c, ys, [x]))(*sv(c, [2, 5], [2, 3], 1, static=True)))


def slice_op(g):
    op = "Slice"

    def sl(c, shape, begin, size, t="float", ti=np.int32, static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        if static:
            b, s = tf.constant(np.array(begin, ti)), tf.constant(np.array(size, ti))
        else:
            b = c.feed(np.array(begin, ti), name="begin")
            s = c.feed(np.array(size, ti), name="size")
        return x, raw.Slice(input=x, begin=b, size=s)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sl(c, [3, 4], [1, 1], [2, 2], t)[1],
              golden=(t == "float"))
    g.add(op, "size_minus_one", lambda c: sl(c, [3, 4], [1, 2], [-1, -1])[1])
    g.add(op, "zero_size", lambda c: sl(c, [3, 4], [3, 0], [0, 4])[1])
    g.add(op, "out_of_bounds", lambda c: sl(c, [3, 4], [2, 0], [2, 4])[1], golden=True)
    g.add(op, "negative_begin", lambda c: sl(c, [3, 4], [-1, 0], [1, 4])[1])
    g.add(op, "size_below_minus_one", lambda c: sl(c, [3, 4], [0, 0], [-2, 1])[1])
    g.add(op, "rank_mismatch", lambda c: sl(c, [3, 4], [0], [1])[1])
    g.add(op, "scalar", lambda c: sl(c, [], np.zeros([0], np.int32), np.zeros([0], np.int32))[1])
    g.add(op, "int64_index", lambda c: sl(c, [5], [1], [3], ti=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, y: grads(c, [y], [x]))(
              *sl(c, [3, 4], [1, 1], [2, 2], static=True)))


def strided_slice(g):
    op = "StridedSlice"

    def ss(c, shape, begin, end, strides, t="float", ti=np.int32, static=False, **masks):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        if static:
            args = [tf.constant(np.array(v, ti)) for v in (begin, end, strides)]
        else:
            args = [c.feed(np.array(v, ti), name=n)
                    for v, n in ((begin, "begin"), (end, "end"), (strides, "strides"))]
        return x, raw.StridedSlice(input=x, begin=args[0], end=args[1], strides=args[2],
                                   **masks)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ss(c, [3, 4], [1, 0], [3, 4], [1, 2], t)[1],
              golden=(t == "float"))
    cases = {
        "negative_stride": ([5], [4], [0], [-2], {}),
        "negative_indices": ([5], [-4], [-1], [1], {}),
        "clamped_ends": ([5], [-10], [10], [1], {}),
        "begin_end_masks": ([3, 4], [2, 3], [0, 0], [1, 1], dict(begin_mask=1, end_mask=2)),
        "ellipsis": ([2, 3, 4], [0, 1], [0, 3], [1, 1], dict(ellipsis_mask=1)),
        "new_axis": ([3, 4], [0, 1], [0, 3], [1, 1], dict(new_axis_mask=1)),
        "shrink_axis": ([3, 4], [1, 0], [2, 4], [1, 1], dict(shrink_axis_mask=1)),
        "shrink_negative": ([3, 4], [-1], [0], [1], dict(shrink_axis_mask=1)),
        "reverse_all": ([3, 4], [0, 0], [0, 0], [-1, -1], dict(begin_mask=3, end_mask=3)),
        "empty_result": ([5], [3], [1], [1], {}),
        "zero_stride": ([5], [0], [5], [0], {}),
        "shrink_out_of_range": ([3], [5], [6], [1], dict(shrink_axis_mask=1)),
        "too_many_indices": ([3], [0, 0], [1, 1], [1, 1], {}),
        "length_mismatch": ([3, 4], [0, 0], [1], [1, 1], {}),
        "scalar_result": ([2, 2], [1, 1], [2, 2], [1, 1], dict(shrink_axis_mask=3)),
    }
    for name, (shape, b, e, s, masks) in cases.items():
        g.add(op, name, lambda c, shape=shape, b=b, e=e, s=s, masks=masks:
              ss(c, shape, b, e, s, **masks)[1],
              golden=name in ("ellipsis", "zero_stride"))
    g.add(op, "int64_index", lambda c: ss(c, [5], [1], [4], [2], ti=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, y: grads(c, [y], [x]))(
              *ss(c, [3, 4], [1, 0], [3, 4], [1, 2], static=True)))


def tile(g):
    op = "Tile"

    def tl(c, shape, mult, t="float", tm=np.int32, static=False):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        m = tf.constant(np.array(mult, tm)) if static else \
            c.feed(np.array(mult, tm), name="multiples")
        return x, raw.Tile(input=x, multiples=m)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: tl(c, [2, 3], [2, 1], t)[1],
              golden=(t == "float"))
    g.add(op, "zero_multiple", lambda c: tl(c, [2, 3], [0, 2])[1])
    g.add(op, "rank3", lambda c: tl(c, [2, 1, 2], [1, 3, 2])[1])
    g.add(op, "wrong_length", lambda c: tl(c, [2, 3], [2])[1], golden=True)
    g.add(op, "negative_multiple", lambda c: tl(c, [2, 3], [-1, 1])[1])
    g.add(op, "scalar", lambda c: tl(c, [], np.zeros([0], np.int32))[1])
    g.add(op, "int64_multiples", lambda c: tl(c, [2], [3], tm=np.int64)[1])
    g.add(op, "grad_float",
          lambda c: (lambda x, y: grads(c, [y], [x]))(*tl(c, [2, 3], [2, 2], static=True)),
          golden=True)
    g.add(op, "grad_double",
          lambda c: (lambda x, y: grads(c, [y], [x]))(
              *tl(c, [2, 1, 3], [1, 3, 1], "double", static=True)))


def fill(g):
    op = "Fill"

    def fl(c, dims, value, ti=np.int32, t=None):
        v = np.asarray(value) if t is None else c.rand(DTYPES[t], np.shape(value))
        return raw.Fill(dims=c.feed(np.array(dims, ti), name="dims"),
                        value=c.feed(v, dtype=DTYPES[t] if t else None, name="value"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: fl(c, [2, 3], 0, t=t), golden=(t == "float"))
    g.add(op, "scalar_dims", lambda c: fl(c, np.zeros([0], np.int32), np.float32(2.5)))
    g.add(op, "zero_dim", lambda c: fl(c, [2, 0], np.float32(1)))
    g.add(op, "negative_dim", lambda c: fl(c, [2, -1], np.float32(1)), golden=True)
    g.add(op, "value_not_scalar", lambda c: fl(c, [2], np.array([1, 2], np.float32)))
    g.add(op, "dims_rank2", lambda c: fl(c, [[2]], np.float32(1)))
    g.add(op, "int64_dims", lambda c: fl(c, [3], np.int32(7), ti=np.int64))


def range_op(g):
    op = "Range"

    def rg(c, start, limit, delta, t):
        d = DTYPES[t]
        return raw.Range(start=c.feed(np.array(start, np_type(d)), name="start"),
                         limit=c.feed(np.array(limit, np_type(d)), name="limit"),
                         delta=c.feed(np.array(delta, np_type(d)), name="delta"))

    for t in g.types(op, "Tidx"):
        g.add(op, "dtype_" + t, lambda c, t=t: rg(c, 1, 10, 3, t), golden=(t == "int32"))
    g.add(op, "negative_delta", lambda c: rg(c, 5, -4, -2, "int32"))
    g.add(op, "fractional", lambda c: rg(c, 0.5, 2.0, 0.375, "float"), golden=True)
    g.add(op, "fractional_inexact", lambda c: rg(c, 0, 1, 0.1, "double"))
    g.add(op, "empty", lambda c: rg(c, 3, 3, 1, "int32"))
    g.add(op, "zero_delta", lambda c: rg(c, 0, 5, 0, "int32"))
    g.add(op, "wrong_direction", lambda c: rg(c, 5, 0, 1, "int32"))
    g.add(op, "wrong_direction_negative", lambda c: rg(c, 0, 5, -1, "int64"))
    g.add(op, "start_not_scalar",
          lambda c: raw.Range(start=c.feed(np.array([1], np.int32)),
                              limit=c.feed(np.array(5, np.int32)),
                              delta=c.feed(np.array(1, np.int32))))


def one_hot(g):
    op = "OneHot"

    def oh(c, indices, depth, t="float", ti=np.int32, axis=-1):
        d = DTYPES[t]
        return raw.OneHot(indices=c.feed(np.array(indices, ti), name="indices"),
                          depth=c.feed(np.array(depth, np.int32), name="depth"),
                          on_value=c.feed(c.rand(d, [], "pos"), dtype=d, name="on"),
                          off_value=c.feed(c.rand(d, [], "any"), dtype=d, name="off"),
                          axis=axis)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: oh(c, [0, 2, 1], 3, t), golden=(t == "float"))
    for ti in g.types(op, "TI"):
        g.add(op, "indices_" + ti,
              lambda c, ti=ti: oh(c, [0, 2, 1], 3, ti=np_type(DTYPES[ti])))
    for axis in (0, 1, -1):
        g.add(op, "axis_%d" % axis, lambda c, axis=axis: oh(c, [[0, 3], [1, 2]], 4, axis=axis),
              golden=(axis == 0))
    g.add(op, "out_of_range_indices", lambda c: oh(c, [-1, 3, 5, 1], 3))
    g.add(op, "scalar_index", lambda c: oh(c, 1, 3))
    g.add(op, "zero_depth", lambda c: oh(c, [0, 1], 0))
    g.add(op, "negative_depth", lambda c: oh(c, [0, 1], -1))
    g.add(op, "bad_axis",
          lambda c: Spec(fetches=[oh(c, [0, 1], 3)], edit=set_attr("OneHot", "axis", -2)),
          note="an axis below -1 (set in the GraphDef: Python rejects it)")
    g.add(op, "on_not_scalar",
          lambda c: raw.OneHot(indices=c.feed(np.array([0, 1], np.int32)),
                               depth=c.feed(np.array(2, np.int32)),
                               on_value=c.feed(np.array([1, 1], np.float32)),
                               off_value=c.feed(np.array(0, np.float32))))


def gather(g):
    op = "Gather"

    def ga(c, pshape, indices, t="float", ti=np.int32, static=False):
        p = c.input(DTYPES[t], pshape, name="params", static=static)
        i = c.feed(np.array(indices, ti), name="indices", static=static)
        return p, raw.Gather(params=p, indices=i)

    for t in g.types(op, "Tparams"):
        g.add(op, "dtype_" + t, lambda c, t=t: ga(c, [4, 2], [3, 0, 3], t)[1],
              golden=(t == "float"))
    g.add(op, "int64_indices", lambda c: ga(c, [4, 2], [1, 2], ti=np.int64)[1])
    g.add(op, "indices_rank2", lambda c: ga(c, [4, 2], [[0, 1], [2, 3]])[1])
    g.add(op, "scalar_index", lambda c: ga(c, [4, 2], 2)[1])
    g.add(op, "out_of_range", lambda c: ga(c, [4, 2], [1, 4])[1], golden=True)
    g.add(op, "negative_index", lambda c: ga(c, [4, 2], [-1])[1])
    g.add(op, "empty_indices", lambda c: ga(c, [4, 2], np.zeros([0], np.int32))[1])
    g.add(op, "scalar_params", lambda c: ga(c, [], [0])[1])
    g.add(op, "grad_float",
          lambda c: (lambda p, y: grads(c, [y], [p]))(*ga(c, [4, 2], [3, 0, 3], static=True)),
          note="an IndexedSlices gradient: its values and indices")

    op = "GatherV2"

    def gv(c, pshape, indices, axis, batch_dims=0, t="float", ti=np.int32, ta=np.int32,
           static=False):
        p = c.input(DTYPES[t], pshape, name="params", static=static)
        i = c.feed(np.array(indices, ti), name="indices", static=static)
        a = tf.constant(np.array(axis, ta)) if static else \
            c.feed(np.array(axis, ta), name="axis")
        return p, raw.GatherV2(params=p, indices=i, axis=a, batch_dims=batch_dims)

    for t in g.types(op, "Tparams"):
        g.add(op, "dtype_" + t, lambda c, t=t: gv(c, [4, 3], [3, 0], 0, t=t)[1],
              golden=(t == "float"))
    g.add(op, "axis1", lambda c: gv(c, [2, 4, 2], [[3, 1], [0, 0]], 1)[1], golden=True)
    g.add(op, "negative_axis", lambda c: gv(c, [2, 4], [1, 3], -1)[1])
    g.add(op, "batch_dims", lambda c: gv(c, [2, 3, 4], [[0, 2], [1, 1]], 1, batch_dims=1)[1])
    g.add(op, "batch_dims_axis2",
          lambda c: gv(c, [2, 3, 4], [[0, 3], [1, 1]], 2, batch_dims=1)[1])
    g.add(op, "out_of_range", lambda c: gv(c, [4, 3], [4], 0)[1])
    g.add(op, "axis_out_of_range", lambda c: gv(c, [4, 3], [0], 2)[1])
    g.add(op, "int64_indices_axis",
          lambda c: gv(c, [4, 3], [1], 1, ti=np.int64, ta=np.int64)[1])
    g.add(op, "scalar_index", lambda c: gv(c, [4, 3], 1, 1)[1])
    g.add(op, "grad_axis0",
          lambda c: (lambda p, y: grads(c, [y], [p]))(*gv(c, [4, 2], [3, 0, 3], 0, static=True)),
          note="an IndexedSlices gradient: its values and indices")
    g.add(op, "grad_axis1",
          lambda c: (lambda p, y: grads(c, [y], [p]))(*gv(c, [2, 4], [3, 0, 3], 1, static=True)))


def dynamic_stitch(g):
    op = "DynamicStitch"

    def ds(c, indices, shapes, t="float", static=False):
        idx = [c.feed(np.array(i, np.int32), name="i%d" % n, static=static)
               for n, i in enumerate(indices)]
        data = [c.input(DTYPES[t], s, name="d%d" % n, static=static)
                for n, s in enumerate(shapes)]
        return data, raw.DynamicStitch(indices=idx, data=data)

    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: ds(c, [[0, 2], [1, 3]], [[2, 2], [2, 2]], t)[1],
              golden=(t == "float"))
    g.add(op, "overlapping", lambda c: ds(c, [[0, 1], [1, 2]], [[2], [2]])[1],
          note="later data wins at a repeated index")
    g.add(op, "scalar_indices", lambda c: ds(c, [1, 0], [[3], [3]])[1])
    g.add(op, "indices_rank2", lambda c: ds(c, [[[0], [3]], [2, 1]], [[2, 1, 2], [2, 2]])[1])
    g.add(op, "shape_mismatch", lambda c: ds(c, [[0, 1], [2]], [[3], [1]])[1], golden=True)
    g.add(op, "negative_index", lambda c: ds(c, [[0, -1]], [[2]])[1])
    g.add(op, "empty", lambda c: ds(c, [np.zeros([0], np.int32)], [[0, 3]])[1])
    g.add(op, "grad_float",
          lambda c: (lambda d, y: grads(c, [y], d, dys=[c.rand(tf.float32, [4, 2])]))(
              *ds(c, [[0, 2], [1, 3]], [[2, 2], [2, 2]], static=True)))


def broadcast_gradient_args(g):
    op = "BroadcastGradientArgs"

    def bga(c, s0, s1, ti=np.int32):
        return list(raw.BroadcastGradientArgs(s0=c.feed(np.array(s0, ti), name="s0"),
                                              s1=c.feed(np.array(s1, ti), name="s1")))

    g.add(op, "broadcast", lambda c: bga(c, [2, 1, 3], [4, 1]), golden=True)
    g.add(op, "int64", lambda c: bga(c, [2, 3], [1, 3], np.int64))
    g.add(op, "equal", lambda c: bga(c, [2, 3], [2, 3]))
    g.add(op, "scalar", lambda c: bga(c, np.zeros([0], np.int32), [2, 3]))
    g.add(op, "ones", lambda c: bga(c, [1, 1], [1]))
    g.add(op, "zero_dim", lambda c: bga(c, [0, 1], [1, 3]))
    g.add(op, "incompatible", lambda c: bga(c, [2, 3], [4]), golden=True)


def broadcast_args(g):
    op = "BroadcastArgs"

    def ba(c, s0, s1, ti=np.int32):
        return raw.BroadcastArgs(s0=c.feed(np.array(s0, ti), name="s0"),
                                 s1=c.feed(np.array(s1, ti), name="s1"))

    g.add(op, "broadcast", lambda c: ba(c, [2, 1, 3], [4, 1]), golden=True)
    g.add(op, "int64", lambda c: ba(c, [5, 1], [1, 1, 7], np.int64))
    g.add(op, "equal", lambda c: ba(c, [2, 3], [2, 3]))
    g.add(op, "scalar", lambda c: ba(c, np.zeros([0], np.int32), [2, 3]))
    g.add(op, "both_scalar", lambda c: ba(c, np.zeros([0], np.int32), np.zeros([0], np.int32)))
    g.add(op, "ones", lambda c: ba(c, [1, 1], [1]))
    g.add(op, "zero_dim", lambda c: ba(c, [0, 1], [1, 3]))
    g.add(op, "zero_vs_two", lambda c: ba(c, [0], [2]))
    g.add(op, "negative", lambda c: ba(c, [-1, 2], [1, 2]))
    g.add(op, "incompatible", lambda c: ba(c, [2, 3], [4]), golden=True)
    g.add(op, "incompatible_int64", lambda c: ba(c, [2, 3], [3, 3], np.int64))
    g.add(op, "not_vector", lambda c: ba(c, [[2, 3]], [3]))
    g.add(op, "scalar_input", lambda c: ba(c, [2], 3))


def like(g, op):
    f = getattr(raw, op)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: f(x=c.input(DTYPES[t], [2, 3], name="x")),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: f(x=c.input(tf.int32, [], name="x")))
    g.add(op, "empty", lambda c: f(x=c.input(tf.float32, [0, 3], name="x")))
    if op == "ZerosLike":
        g.add(op, "string", lambda c: f(x=c.input(tf.string, [2], name="x")))


def placeholders(g):
    op = "Placeholder"
    for t in ANY_TYPES + ["bfloat16", "uint8"]:
        g.add(op, "dtype_" + t, lambda c, t=t: tf.identity(c.input(DTYPES[t], [2], name="x")),
              golden=(t == "float"))
    g.add(op, "fetch_fed", lambda c: c.input(tf.float32, [2, 3], name="x"))
    g.add(op, "not_fed",
          lambda c: v1.placeholder(tf.float32, [2], name="x") * 2, golden=True,
          note="fetching a value that depends on an unfed placeholder")
    # No case feeds a value whose shape contradicts the placeholder's shape
    # attr: TensorFlow's Python Session.run (tf_oracle.py) rejects it before
    # the runtime sees it, and neither TensorFlow's C++ runtime nor stepflow
    # checks it (known_differences.txt, comments).

    op = "PlaceholderWithDefault"

    def pwd(c, t, fed):
        d = tf.constant(c.rand(DTYPES[t], [2, 2]), dtype=DTYPES[t])
        p = raw.PlaceholderWithDefault(input=d, shape=[2, 2], name="p")
        if fed:
            c.feeds[p.name] = np.asarray(c.rand(DTYPES[t], [2, 2]), np_type(DTYPES[t]))
        return tf.identity(p)

    for t in ("float", "int32", "string", "bool"):
        g.add(op, "default_" + t, lambda c, t=t: pwd(c, t, False), golden=(t == "float"))
        g.add(op, "fed_" + t, lambda c, t=t: pwd(c, t, True), golden=(t == "float"))
    g.add(op, "unknown_shape",
          lambda c: raw.PlaceholderWithDefault(input=tf.constant([1, 2, 3]), shape=None))


def const(g):
    op = "Const"
    for t in list(DTYPES):
        g.add(op, "dtype_" + t,
              lambda c, t=t: tf.constant(c.rand(DTYPES[t], [2, 3]), dtype=DTYPES[t]),
              golden=(t in ("float", "string")))
    g.add(op, "splat", lambda c: tf.constant(1.5, shape=[3, 4]),
          note="one value repeated to the shape")
    g.add(op, "scalar", lambda c: tf.constant(np.int64(-7)))
    g.add(op, "empty", lambda c: tf.constant(np.zeros([0, 2], np.float32)))
    g.add(op, "string_scalar", lambda c: tf.constant(b"hello\x00world"))

    def mismatch(c):
        def edit(gd):
            add_node(gd, "bad", "Const", dtype=tf.float32, value=np.array([1, 2], np.int32))
        return Spec(edit=edit, extra_fetch_names=["bad:0"])
    g.add(op, "dtype_mismatch", mismatch, golden=True,
          note="the value's dtype differs from the dtype attr")
