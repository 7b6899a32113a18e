"""Op cases for the layout and index-driven array ops: padding, strided
slice gradients, permutation inversion, ConcatOffset, the legacy Concat,
BroadcastTo, ReverseV2, Roll, Bitcast, Where, TopKV2, NthElement, Unique,
ListDiff, GatherNd, ScatterNd, TensorScatter*, the segment reductions, the
block rearrangements and the matrix diagonals.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw
import numpy as np
import tensorflow as tf


def _static(c, t, shape, kind="any"):
    return c.input(DTYPES[t], shape, kind=kind, static=True)


def _values(x, t):
    """Small integers `x` as dtype `t` (strings: b"w<i>")."""
    v = np.asarray(x)
    if t == "string":
        return np.vectorize(lambda i: b"w%d" % i, otypes=[object])(v) \
            if v.size else np.zeros(v.shape, object)
    return v.astype(DTYPES[t].as_numpy_dtype)


def _grad(c, build, shape, kind="any"):
    """tf.gradients of build(x) for a static float input x."""
    x = _static(c, "float", shape, kind)
    ys = build(x)
    return grads(c, ys if isinstance(ys, list) else [ys], [x])


def pad(g):
    for op in ("Pad", "PadV2"):
        f = getattr(raw, op)

        def pd(c, shape, pads, t="float", tp=np.int32, cv=None, op=op, f=f):
            x = c.input(DTYPES[t], shape, name="x")
            p = c.feed(np.array(pads, tp), name="paddings")
            if op == "Pad":
                return f(input=x, paddings=p)
            if cv is None:
                cv = c.rand(DTYPES[t], [], "any")
            return f(input=x, paddings=p, constant_values=c.feed(cv, dtype=DTYPES[t],
                                                                 name="cv"))

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, pd=pd: pd(c, [2, 3], [[1, 0], [2, 1]], t),
                  golden=(t == "float"))
        g.add(op, "int64_paddings",
              lambda c, pd=pd: pd(c, [3], [[0, 2]], tp=np.int64))
        g.add(op, "rank3", lambda c, pd=pd: pd(c, [2, 1, 2], [[0, 1], [1, 1], [0, 0]]))
        g.add(op, "zero_paddings", lambda c, pd=pd: pd(c, [2, 2], [[0, 0], [0, 0]]))
        g.add(op, "scalar", lambda c, pd=pd: pd(c, [], np.zeros([0, 2], np.int32)))
        g.add(op, "empty_input", lambda c, pd=pd: pd(c, [0, 2], [[1, 1], [0, 1]]))
        g.add(op, "negative_padding", lambda c, pd=pd: pd(c, [2, 2], [[0, -1], [0, 0]]),
              golden=True)
        g.add(op, "paddings_wrong_rows", lambda c, pd=pd: pd(c, [2, 2], [[0, 1]]))
        g.add(op, "paddings_not_matrix", lambda c, pd=pd: pd(c, [2], [0, 1]))
        if op == "PadV2":
            g.add(op, "constant_not_scalar",
                  lambda c, pd=pd: pd(c, [2], [[1, 1]], cv=np.array([1.0, 2.0], np.float32)))
        g.add(op, "grad_float",
              lambda c, f=f, op=op: _grad(
                  c, lambda x: f(input=x, paddings=tf.constant([[1, 0], [0, 2]]))
                  if op == "Pad" else f(input=x, paddings=tf.constant([[1, 0], [0, 2]]),
                                        constant_values=tf.constant(0.5)), [2, 3]))

    op = "MirrorPad"

    def mp(c, shape, pads, mode, t="float", tp=np.int32, f=raw.MirrorPad):
        x = c.input(DTYPES[t], shape, name="x")
        return f(input=x, paddings=c.feed(np.array(pads, tp), name="paddings"), mode=mode)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: mp(c, [3, 3], [[1, 2], [2, 0]], "REFLECT", t),
              golden=(t == "float"))
    g.add(op, "symmetric", lambda c: mp(c, [3, 3], [[3, 1], [2, 3]], "SYMMETRIC"),
          golden=True)
    g.add(op, "int64_paddings", lambda c: mp(c, [4], [[1, 3]], "REFLECT", tp=np.int64))
    g.add(op, "reflect_too_large", lambda c: mp(c, [3], [[3, 0]], "REFLECT"), golden=True)
    g.add(op, "symmetric_too_large", lambda c: mp(c, [3], [[0, 4]], "SYMMETRIC"))
    g.add(op, "negative_padding", lambda c: mp(c, [3], [[-1, 0]], "REFLECT"))
    g.add(op, "empty_dim", lambda c: mp(c, [0, 3], [[0, 0], [1, 1]], "SYMMETRIC"))
    g.add(op, "scalar", lambda c: mp(c, [], np.zeros([0, 2], np.int32), "REFLECT"))
    for mode in ("REFLECT", "SYMMETRIC"):
        g.add(op, "grad_" + mode.lower(),
              lambda c, mode=mode: _grad(c, lambda x: raw.MirrorPad(
                  input=x, paddings=tf.constant([[2, 1], [1, 2]]), mode=mode), [3, 4]))

    op = "MirrorPadGrad"
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: mp(c, [5, 6], [[1, 2], [2, 1]], "REFLECT", t, f=raw.MirrorPadGrad),
              golden=(t == "float"))
    g.add(op, "symmetric",
          lambda c: mp(c, [7, 3], [[3, 1], [0, 2]], "SYMMETRIC", f=raw.MirrorPadGrad),
          golden=True)
    g.add(op, "too_large",
          lambda c: mp(c, [4], [[2, 1]], "REFLECT", f=raw.MirrorPadGrad))
    g.add(op, "negative_size",
          lambda c: mp(c, [2], [[2, 1]], "SYMMETRIC", f=raw.MirrorPadGrad))


def strided_slice_grad(g):
    op = "StridedSliceGrad"

    def ssg(c, shape, begin, end, strides, dy_shape, t="float", ti=np.int32, **masks):
        args = [c.feed(np.array(v, ti), name=n) for v, n in
                ((shape, "shape"), (begin, "begin"), (end, "end"), (strides, "strides"))]
        dy = c.input(DTYPES[t], dy_shape, name="dy")
        return raw.StridedSliceGrad(shape=args[0], begin=args[1], end=args[2],
                                    strides=args[3], dy=dy, **masks)

    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: ssg(c, [3, 4], [1, 0], [3, 4], [1, 2], [2, 2], t),
              golden=(t == "float"))
    g.add(op, "negative_stride", lambda c: ssg(c, [5], [4], [0], [-2], [2]))
    g.add(op, "masks", lambda c: ssg(c, [2, 3, 4], [0, 1], [0, 3], [1, 1], [2, 3, 2],
                                     ellipsis_mask=1), golden=True)
    g.add(op, "shrink_new_axis", lambda c: ssg(c, [3, 4], [1, 0, 1], [2, 0, 3], [1, 1, 1],
                                               [1, 2], shrink_axis_mask=1, new_axis_mask=2))
    g.add(op, "int64_index", lambda c: ssg(c, [5], [1], [4], [2], [2], ti=np.int64))
    g.add(op, "dy_shape_mismatch", lambda c: ssg(c, [3, 4], [0, 0], [3, 4], [1, 1], [3, 3]),
          golden=True)
    g.add(op, "zero_stride", lambda c: ssg(c, [5], [0], [5], [0], [5]))
    g.add(op, "empty", lambda c: ssg(c, [0, 4], [0, 0], [0, 4], [1, 1], [0, 4]))


def invert_permutation(g):
    op = "InvertPermutation"

    def ip(c, x, t=np.int32):
        return raw.InvertPermutation(x=c.feed(np.array(x, t), name="x"))

    g.add(op, "int32", lambda c: ip(c, [2, 0, 3, 1]), golden=True)
    g.add(op, "int64", lambda c: ip(c, [1, 0, 2], np.int64))
    g.add(op, "empty", lambda c: ip(c, np.zeros([0], np.int32)))
    g.add(op, "out_of_range", lambda c: ip(c, [0, 3, 1]), golden=True)
    g.add(op, "negative", lambda c: ip(c, [0, -1]))
    g.add(op, "duplicate", lambda c: ip(c, [0, 0, 1]))
    g.add(op, "not_vector", lambda c: ip(c, [[0, 1], [1, 0]]))


def concat_offset(g):
    op = "ConcatOffset"

    def co(c, dim, shapes, t=np.int32):
        return raw.ConcatOffset(concat_dim=c.feed(np.array(dim, np.int32), name="dim"),
                                shape=[c.feed(np.array(s, t)) for s in shapes])

    g.add(op, "axis1", lambda c: co(c, 1, [[2, 3, 4], [2, 5, 4], [2, 1, 4]]), golden=True)
    g.add(op, "negative_axis", lambda c: co(c, -3, [[2, 3], [4, 3]]))
    g.add(op, "int64", lambda c: co(c, 0, [[2, 3], [4, 3]], np.int64))
    g.add(op, "axis_out_of_range", lambda c: co(c, 2, [[2, 3], [2, 3]]), golden=True)
    g.add(op, "mismatch", lambda c: co(c, 0, [[2, 3], [2, 4]]))
    g.add(op, "length_mismatch", lambda c: co(c, 0, [[2, 3], [2, 3, 1]]))
    g.add(op, "dim_not_scalar", lambda c: co(c, [0], [[2, 3], [2, 3]]))


def concat_legacy(g):
    op = "Concat"

    def cc(c, dim, shapes, t="float"):
        return raw.Concat(concat_dim=c.feed(np.array(dim, np.int32), name="dim"),
                          values=[c.input(DTYPES[t], s) for s in shapes])

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cc(c, 1, [[2, 1], [2, 3]], t),
              golden=(t == "float"))
    g.add(op, "negative_axis", lambda c: cc(c, -2, [[1, 2], [3, 2], [0, 2]]))
    g.add(op, "axis_out_of_range", lambda c: cc(c, 2, [[1, 2], [1, 2]]), golden=True)
    g.add(op, "rank_mismatch", lambda c: cc(c, 0, [[1, 2], [2]]))
    g.add(op, "scalars", lambda c: cc(c, 0, [[], []]))


def broadcast_to(g):
    op = "BroadcastTo"

    def bt(c, shape, target, t="float", ti=np.int32):
        return raw.BroadcastTo(input=c.input(DTYPES[t], shape, name="x"),
                               shape=c.feed(np.array(target, ti), name="shape"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bt(c, [3, 1], [2, 3, 4], t),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: bt(c, [], [2, 2]))
    g.add(op, "same_shape", lambda c: bt(c, [2, 3], [2, 3]))
    g.add(op, "int64_shape", lambda c: bt(c, [1, 4], [3, 4], ti=np.int64))
    g.add(op, "to_empty", lambda c: bt(c, [1, 3], [0, 3]))
    g.add(op, "incompatible", lambda c: bt(c, [3], [2, 4]), golden=True)
    g.add(op, "shrink", lambda c: bt(c, [3, 2], [1, 2]))
    g.add(op, "rank_too_high", lambda c: bt(c, [1, 1, 2], [1, 2]))
    g.add(op, "negative_dim", lambda c: bt(c, [1], [-1]))
    g.add(op, "shape_not_vector", lambda c: bt(c, [1], [[2]]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.BroadcastTo(input=x, shape=tf.constant([2, 3, 4])),
                          [3, 1]))


def reverse(g):
    op = "ReverseV2"

    def rv(c, shape, axis, t="float", ti=np.int32):
        return raw.ReverseV2(tensor=c.input(DTYPES[t], shape, name="x"),
                             axis=c.feed(np.array(axis, ti), name="axis"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: rv(c, [2, 3], [1], t), golden=(t == "float"))
    g.add(op, "negative_axes", lambda c: rv(c, [2, 3, 2], [-1, 0], ti=np.int64), golden=True)
    g.add(op, "no_axes", lambda c: rv(c, [2, 3], np.zeros([0], np.int32)))
    g.add(op, "scalar", lambda c: rv(c, [], np.zeros([0], np.int32)))
    g.add(op, "empty", lambda c: rv(c, [0, 3], [5]))
    g.add(op, "out_of_range", lambda c: rv(c, [2, 3], [2]), golden=True)
    g.add(op, "duplicate", lambda c: rv(c, [2, 3], [1, -1]))
    g.add(op, "axis_not_vector", lambda c: rv(c, [2, 3], 1))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.ReverseV2(tensor=x, axis=tf.constant([0])), [3, 2]))


def roll(g):
    op = "Roll"

    def rl(c, shape, shift, axis, t="float", ts=np.int32, ta=np.int32):
        return raw.Roll(input=c.input(DTYPES[t], shape, name="x"),
                        shift=c.feed(np.array(shift, ts), name="shift"),
                        axis=c.feed(np.array(axis, ta), name="axis"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: rl(c, [2, 5], 2, 1, t), golden=(t == "float"))
    g.add(op, "multi_axis", lambda c: rl(c, [3, 4], [-1, 7], [0, -1], ts=np.int64), golden=True)
    g.add(op, "same_axis_twice", lambda c: rl(c, [5], [2, 2], [0, 0], ta=np.int64))
    g.add(op, "empty", lambda c: rl(c, [0, 3], 1, 1))
    g.add(op, "scalar_input", lambda c: rl(c, [], 1, 0))
    g.add(op, "axis_out_of_range", lambda c: rl(c, [3], 1, 1), golden=True)
    g.add(op, "size_mismatch", lambda c: rl(c, [3, 3], [1, 2], [0]))
    g.add(op, "shift_rank2", lambda c: rl(c, [3, 3], [[1]], [[0]]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.Roll(input=x, shift=tf.constant(1),
                                                 axis=tf.constant(1)), [2, 3]))


def bitcast(g):
    op = "Bitcast"

    def bc(c, shape, t, to, kind="any"):
        return raw.Bitcast(input=c.input(DTYPES[t], shape, kind=kind, name="x"),
                           type=DTYPES[to])

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bc(c, [2, 2], t, t), golden=(t == "float"))
    g.add(op, "float_to_uint8", lambda c: bc(c, [3], "float", "uint8"), golden=True)
    g.add(op, "int8_to_int32", lambda c: bc(c, [2, 4], "int8", "int32"))
    g.add(op, "half_to_float", lambda c: bc(c, [2], "half", "float"))
    g.add(op, "complex_to_double", lambda c: bc(c, [2], "complex128", "double"))
    g.add(op, "wrong_last_dim", lambda c: bc(c, [2, 3], "int8", "int32"), golden=True)
    g.add(op, "scalar_to_wider", lambda c: bc(c, [], "int16", "int32"))


def where(g):
    op = "Where"
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: raw.Where(condition=c.input(DTYPES[t], [3, 4], kind="small")),
              golden=(t == "bool"))
    g.add(op, "scalar", lambda c: raw.Where(condition=c.feed(np.array(True))))
    g.add(op, "empty", lambda c: raw.Where(condition=c.input(tf.bool, [0, 3])))
    g.add(op, "rank3", lambda c: raw.Where(condition=c.input(tf.int32, [2, 2, 3], kind="small")))


def topk(g):
    op = "TopKV2"

    def tk(c, shape, k, t="float", tk_=np.int32, it=tf.int32, srt=True, kind="any"):
        return raw.TopKV2(input=c.input(DTYPES[t], shape, kind=kind, name="x"),
                          k=c.feed(np.array(k, tk_), name="k"), sorted=srt,
                          index_type=it)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: tk(c, [3, 5], 2, t), golden=(t == "float"))
    g.add(op, "ties", lambda c: tk(c, [2, 6], 4, "int32", kind="small"), golden=True)
    g.add(op, "index_int64", lambda c: tk(c, [4], 3, tk_=np.int64, it=tf.int64))
    g.add(op, "index_int16", lambda c: tk(c, [4], 2, tk_=np.int16, it=tf.int16))
    g.add(op, "k_all", lambda c: tk(c, [2, 3], 3))
    g.add(op, "k_zero", lambda c: tk(c, [2, 3], 0))
    g.add(op, "unsorted_k1", lambda c: tk(c, [3, 4], 1, srt=False))
    g.add(op, "k_too_large", lambda c: tk(c, [2, 3], 4), golden=True)
    g.add(op, "k_negative", lambda c: tk(c, [2, 3], -1))
    g.add(op, "scalar_input", lambda c: tk(c, [], 1))
    g.add(op, "k_not_scalar", lambda c: tk(c, [3], [1]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.TopKV2(input=x, k=tf.constant(2))[0], [3, 4]))

    op = "NthElement"

    def ne(c, shape, n, t="float", rev=False, kind="any"):
        return raw.NthElement(input=c.input(DTYPES[t], shape, kind=kind, name="x"),
                              n=c.feed(np.array(n, np.int32), name="n"), reverse=rev)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ne(c, [3, 5], 2, t), golden=(t == "float"))
    g.add(op, "reverse", lambda c: ne(c, [2, 3, 4], 1, rev=True), golden=True)
    g.add(op, "vector", lambda c: ne(c, [6], 0, "int32", kind="small"))
    g.add(op, "n_too_large", lambda c: ne(c, [2, 3], 3), golden=True)
    g.add(op, "n_negative", lambda c: ne(c, [2, 3], -1))
    g.add(op, "scalar_input", lambda c: ne(c, [], 0))
    g.add(op, "n_not_scalar", lambda c: ne(c, [3], [0]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.NthElement(input=x, n=tf.constant(1)), [3, 4]))


def unique(g):
    for op in ("Unique", "UniqueWithCounts", "UniqueV2"):
        f = getattr(raw, op)

        def un(c, x, t="int32", it=tf.int32, axis=None, static=False, op=op, f=f):
            xt = c.feed(_values(x, t), dtype=DTYPES[t], name="x", static=static)
            if op == "UniqueV2":
                a = np.zeros([0], np.int64) if axis is None else np.array(axis)
                return f(x=xt, axis=c.feed(a, name="axis"), out_idx=it)
            return f(x=xt, out_idx=it)

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, un=un: un(c, [3, 1, 3, 0, 1, 1], t),
                  golden=(t == "int32"))
        g.add(op, "out_idx_int64", lambda c, un=un: un(c, [5, 5, 2], it=tf.int64))
        g.add(op, "empty", lambda c, un=un: un(c, np.zeros([0], np.int32)))
        g.add(op, "signed_zero",
              lambda c, f=f, op=op: f(x=c.feed(np.array([0.0, -0.0, 1.0, -0.0], np.float32)),
                                      **({"axis": c.feed(np.zeros([0], np.int64))}
                                         if op == "UniqueV2" else {})))
        g.add(op, "nans",
              lambda c, f=f, op=op: f(x=c.feed(np.array([np.nan, 1.0, np.nan, 1.0], np.float64)),
                                      **({"axis": c.feed(np.zeros([0], np.int64))}
                                         if op == "UniqueV2" else {})))
        g.add(op, "not_vector", lambda c, un=un: un(c, [[1, 2], [2, 1]]), golden=True)
        if op == "UniqueV2":
            g.add(op, "axis0", lambda c, un=un: un(c, [[1, 2], [3, 4], [1, 2]], axis=[0]),
                  golden=True)
            g.add(op, "axis1", lambda c, un=un: un(c, [[1, 2, 1], [3, 4, 3]], axis=[-1]))
            g.add(op, "axis_int32", lambda c, un=un: un(c, [4, 4, 1],
                                                        axis=np.array([0], np.int32)))
            g.add(op, "axis_out_of_range", lambda c, un=un: un(c, [[1, 2]], axis=[2]))
            g.add(op, "axis_two_elements", lambda c, un=un: un(c, [[1, 2]], axis=[0, 1]))

    op = "ListDiff"

    def ld(c, x, y, t="int32", it=tf.int32):
        return raw.ListDiff(x=c.feed(_values(x, t), dtype=DTYPES[t], name="x"),
                            y=c.feed(_values(y, t), dtype=DTYPES[t], name="y"),
                            out_idx=it)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ld(c, [1, 2, 3, 2, 5], [2, 0], t),
              golden=(t == "int32"))
    g.add(op, "out_idx_int64", lambda c: ld(c, [4, 3, 4], [3], it=tf.int64))
    g.add(op, "empty_y", lambda c: ld(c, [4, 3], np.zeros([0], np.int32)))
    g.add(op, "all_removed", lambda c: ld(c, [1, 1], [1]))
    g.add(op, "signed_zero_nan",
          lambda c: raw.ListDiff(x=c.feed(np.array([-0.0, np.nan, 2.0], np.float32)),
                                 y=c.feed(np.array([0.0, np.nan], np.float32))))
    g.add(op, "x_not_vector", lambda c: ld(c, [[1]], [1]), golden=True)
    g.add(op, "y_not_vector", lambda c: ld(c, [1], 1))


def segments(g):
    for op in ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"):
        f = getattr(raw, op)

        def sg(c, shape, ids, t="float", ti=np.int32, f=f):
            return f(data=c.input(DTYPES[t], shape, name="data"),
                     segment_ids=c.feed(np.array(ids, ti), name="ids"))

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, sg=sg: sg(c, [5, 2], [0, 0, 2, 2, 3], t),
                  golden=(t == "float"))
        g.add(op, "int64_ids", lambda c, sg=sg: sg(c, [3], [1, 1, 1], ti=np.int64))
        g.add(op, "empty", lambda c, sg=sg: sg(c, [0, 2], np.zeros([0], np.int32)))
        g.add(op, "int_mean", lambda c, sg=sg: sg(c, [4], [0, 0, 0, 1], "int32"))
        g.add(op, "unsorted", lambda c, sg=sg: sg(c, [3], [1, 0, 1]), golden=True)
        g.add(op, "negative", lambda c, sg=sg: sg(c, [2], [-1, 0]))
        g.add(op, "size_mismatch", lambda c, sg=sg: sg(c, [3], [0, 1]))
        g.add(op, "ids_not_vector", lambda c, sg=sg: sg(c, [2, 1], [[0], [1]]))
        g.add(op, "grad_float",
              lambda c, f=f: (lambda x: grads(
                  c, [f(data=x, segment_ids=tf.constant([0, 0, 1, 3]))], [x],
                  dys=[c.rand(tf.float32, [4, 2])]))(_static(c, "float", [4, 2], "nonzero")))

    for op in ("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
               "UnsortedSegmentProd"):
        f = getattr(raw, op)

        def us(c, shape, ids, num, t="float", ti=np.int32, tn=np.int32, f=f):
            return f(data=c.input(DTYPES[t], shape, name="data"),
                     segment_ids=c.feed(np.array(ids, ti), name="ids"),
                     num_segments=c.feed(np.array(num, tn), name="num"))

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, us=us: us(c, [5, 2], [3, 0, 3, 1, 0], 5, t),
                  golden=(t == "float"))
        g.add(op, "ids_rank2", lambda c, us=us: us(c, [2, 2, 3], [[1, 0], [1, 1]], 2,
                                                   ti=np.int64, tn=np.int64))
        g.add(op, "negative_id_dropped", lambda c, us=us: us(c, [3], [-1, 0, 1], 2))
        g.add(op, "empty", lambda c, us=us: us(c, [0, 2], np.zeros([0], np.int32), 3))
        g.add(op, "id_out_of_range", lambda c, us=us: us(c, [3], [0, 3, 1], 3), golden=True)
        g.add(op, "negative_num", lambda c, us=us: us(c, [2], [0, 0], -1))
        g.add(op, "num_not_scalar", lambda c, us=us: us(c, [2], [0, 0], [2]))
        g.add(op, "shape_mismatch", lambda c, us=us: us(c, [3, 2], [0, 1], 2))
        g.add(op, "grad_float",
              lambda c, f=f: _grad(c, lambda x: f(data=x, segment_ids=tf.constant(
                  [2, 0, 2, 1]), num_segments=tf.constant(4)), [4, 2], "nonzero"))
    g.add("UnsortedSegmentSum", "int16_ids",
          lambda c: raw.UnsortedSegmentSum(data=c.input(tf.float32, [3]),
                                           segment_ids=c.feed(np.array([0, 2, 0], np.int16)),
                                           num_segments=c.feed(np.array(3, np.int32))))


def gather_scatter_nd(g):
    op = "GatherNd"

    def gn(c, pshape, idx, t="float", ti=np.int32, policy=""):
        return raw.GatherNd(params=c.input(DTYPES[t], pshape, name="params"),
                            indices=c.feed(np.array(idx, ti), name="indices"),
                            bad_indices_policy=policy)

    for t in g.types(op, "Tparams"):
        g.add(op, "dtype_" + t, lambda c, t=t: gn(c, [3, 2], [[2, 1], [0, 0]], t),
              golden=(t == "float"))
    g.add(op, "slices", lambda c: gn(c, [3, 2, 2], [[[1]], [[2]]], ti=np.int64))
    g.add(op, "int16_indices", lambda c: gn(c, [4], [[3], [1]], ti=np.int16))
    g.add(op, "depth0", lambda c: gn(c, [2, 2], np.zeros([3, 0], np.int32)))
    g.add(op, "empty_indices", lambda c: gn(c, [3, 2], np.zeros([0, 2], np.int32)))
    g.add(op, "out_of_range", lambda c: gn(c, [3, 2], [[0, 1], [3, 0]]), golden=True)
    g.add(op, "negative", lambda c: gn(c, [3, 2], [[-1, 0]]))
    g.add(op, "ignore_bad", lambda c: gn(c, [3, 2], [[0, 1], [3, 0]], policy="IGNORE"))
    g.add(op, "depth_too_large", lambda c: gn(c, [3], [[0, 1]]))
    g.add(op, "scalar_indices", lambda c: gn(c, [3], 1))
    g.add(op, "empty_params", lambda c: gn(c, [0, 2], [[0]]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.GatherNd(params=x, indices=tf.constant(
              [[1, 0], [1, 0], [2, 1]])), [3, 2]))

    op = "ScatterNd"

    def sn(c, idx, ushape, shape, t="float", ti=np.int32):
        return raw.ScatterNd(indices=c.feed(np.array(idx, ti), name="indices"),
                             updates=c.input(DTYPES[t], ushape, name="updates"),
                             shape=c.feed(np.array(shape, ti), name="shape"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sn(c, [[1], [3], [1]], [3, 2], [4, 2], t),
              golden=(t == "float"))
    g.add(op, "element_indices", lambda c: sn(c, [[0, 1], [2, 0]], [2], [3, 2], ti=np.int64))
    g.add(op, "empty_updates", lambda c: sn(c, np.zeros([0, 1], np.int32), [0, 2], [3, 2]))
    g.add(op, "out_of_range", lambda c: sn(c, [[4]], [1, 2], [4, 2]), golden=True)
    g.add(op, "negative", lambda c: sn(c, [[-1]], [1, 2], [4, 2]))
    g.add(op, "updates_mismatch", lambda c: sn(c, [[1], [2]], [3, 2], [4, 2]))
    g.add(op, "slice_mismatch", lambda c: sn(c, [[1]], [1, 3], [4, 2]))
    g.add(op, "empty_output", lambda c: sn(c, [[0]], [1], np.zeros([0], np.int32)))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.ScatterNd(
              indices=tf.constant([[1], [0], [1]]), updates=x, shape=tf.constant([3, 2])),
              [3, 2]))

    for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
               "TensorScatterMax", "TensorScatterMin"):
        f = getattr(raw, op)

        def ts(c, shape, idx, ushape, t="float", ti=np.int32, f=f):
            return f(tensor=c.input(DTYPES[t], shape, name="tensor"),
                     indices=c.feed(np.array(idx, ti), name="indices"),
                     updates=c.input(DTYPES[t], ushape, name="updates"))

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, ts=ts: ts(c, [4, 2], [[1], [3]], [2, 2], t),
                  golden=(t == "float"))
        g.add(op, "duplicates", lambda c, ts=ts: ts(c, [4], [[1], [1], [2]], [3], ti=np.int64))
        g.add(op, "empty_updates",
              lambda c, ts=ts: ts(c, [4], np.zeros([0, 1], np.int32), [0]))
        g.add(op, "out_of_range", lambda c, ts=ts: ts(c, [4, 2], [[1], [4]], [2, 2]),
              golden=True)
        g.add(op, "updates_mismatch", lambda c, ts=ts: ts(c, [4, 2], [[1]], [1, 3]))
        g.add(op, "scalar_indices", lambda c, ts=ts: ts(c, [4], 1, [1]))
        g.add(op, "grad_float",
              lambda c, f=f: (lambda x, u: grads(c, [f(tensor=x, indices=tf.constant(
                  [[2], [0]]), updates=u)], [x, u]))(
                  _static(c, "float", [3, 2]), _static(c, "float", [2, 2])))


def reverse_sequence(g):
    op = "ReverseSequence"

    def rs(c, shape, lens, seq_dim, batch_dim=0, t="float", tl=np.int64):
        return raw.ReverseSequence(input=c.input(DTYPES[t], shape, name="x"),
                                   seq_lengths=c.feed(np.array(lens, tl), name="lens"),
                                   seq_dim=seq_dim, batch_dim=batch_dim)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: rs(c, [3, 4], [4, 0, 2], 1, t=t),
              golden=(t == "float"))
    g.add(op, "batch_dim2", lambda c: rs(c, [4, 2, 3], [1, 3, 2], 0, 2, tl=np.int32),
          golden=True)
    g.add(op, "len_too_large", lambda c: rs(c, [2, 3], [4, 1], 1), golden=True)
    g.add(op, "negative_len", lambda c: rs(c, [2, 3], [-1, 1], 1))
    g.add(op, "lens_size_mismatch", lambda c: rs(c, [2, 3], [1], 1))
    g.add(op, "empty", lambda c: rs(c, [0, 3], np.zeros([0], np.int64), 1))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.ReverseSequence(
              input=x, seq_lengths=tf.constant([2, 3], tf.int64), seq_dim=1), [2, 4]))


def space_batch(g):
    op = "SpaceToBatchND"

    def sb(c, shape, block, pads, t="float", ti=np.int32, f=raw.SpaceToBatchND):
        x = c.input(DTYPES[t], shape, name="x")
        b = c.feed(np.array(block, ti), name="block", static=True)
        p = c.feed(np.array(pads, ti), name="pads")
        if f is raw.SpaceToBatchND:
            return f(input=x, block_shape=b, paddings=p)
        return f(input=x, block_shape=b, crops=p)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sb(c, [2, 4, 4, 1], [2, 2], [[0, 0], [0, 0]], t),
              golden=(t == "float"))
    g.add(op, "padded", lambda c: sb(c, [1, 3, 2, 2], [2, 3], [[1, 0], [2, 2]], ti=np.int64),
          golden=True)
    g.add(op, "one_dim", lambda c: sb(c, [2, 5, 2], [3], [[0, 1]]))
    g.add(op, "not_divisible", lambda c: sb(c, [1, 3, 3, 1], [2, 2], [[0, 0], [0, 0]]),
          golden=True)
    g.add(op, "negative_padding", lambda c: sb(c, [1, 4, 1], [2], [[-2, 0]]))
    g.add(op, "zero_block", lambda c: sb(c, [1, 4, 1], [0], [[0, 0]]))
    g.add(op, "paddings_shape", lambda c: sb(c, [1, 4, 1], [2], [[0, 0], [0, 0]]))
    g.add(op, "rank_too_low", lambda c: sb(c, [4], [2], [[0, 0]]))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.SpaceToBatchND(
              input=x, block_shape=tf.constant([2, 2]),
              paddings=tf.constant([[1, 1], [0, 2]])), [1, 2, 2, 1]))

    op = "BatchToSpaceND"
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: sb(c, [4, 2, 2, 1], [2, 2], [[0, 0], [0, 0]], t,
                                f=raw.BatchToSpaceND),
              golden=(t == "float"))
    g.add(op, "cropped", lambda c: sb(c, [6, 2, 2, 2], [2, 3], [[1, 0], [2, 1]], ti=np.int64,
                                      f=raw.BatchToSpaceND), golden=True)
    g.add(op, "batch_not_divisible",
          lambda c: sb(c, [3, 2, 1], [2], [[0, 0]], f=raw.BatchToSpaceND), golden=True)
    g.add(op, "crop_too_large",
          lambda c: sb(c, [2, 2, 1], [2], [[3, 2]], f=raw.BatchToSpaceND))
    g.add(op, "negative_crop",
          lambda c: sb(c, [2, 2, 1], [2], [[-1, 0]], f=raw.BatchToSpaceND))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.BatchToSpaceND(
              input=x, block_shape=tf.constant([2, 2]),
              crops=tf.constant([[1, 0], [0, 1]])), [4, 2, 2, 1]))

    for op in ("SpaceToBatch", "BatchToSpace"):
        f = getattr(raw, op)

        def v1(c, shape, pads, bs=2, t="float", ti=np.int32, f=f, op=op):
            x = c.input(DTYPES[t], shape, name="x")
            p = c.feed(np.array(pads, ti), name="pads")
            if op == "SpaceToBatch":
                return f(input=x, paddings=p, block_size=bs)
            return f(input=x, crops=p, block_size=bs)

        first = [1, 4, 2, 1] if op == "SpaceToBatch" else [4, 2, 1, 1]
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, v1=v1, first=first:
                  v1(c, first, [[0, 0], [0, 0]], t=t), golden=(t == "float"))
        g.add(op, "pads_int64", lambda c, v1=v1, first=first:
              v1(c, first, [[0, 2], [1, 1]] if op == "SpaceToBatch" else [[1, 1], [0, 1]],
                 ti=np.int64, bs=2), golden=True)
        g.add(op, "rank3", lambda c, v1=v1: v1(c, [4, 2, 2], [[0, 0], [0, 0]]), golden=True)


def space_depth(g):
    for op in ("SpaceToDepth", "DepthToSpace"):
        f = getattr(raw, op)
        shape = [2, 4, 6, 3] if op == "SpaceToDepth" else [2, 2, 3, 8]

        def sd(c, shape, bs=2, t="float", fmt="NHWC", f=f):
            return f(input=c.input(DTYPES[t], shape, name="x"), block_size=bs,
                     data_format=fmt)

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, sd=sd, shape=shape: sd(c, shape, t=t),
                  golden=(t == "float"))
        g.add(op, "block3", lambda c, sd=sd: sd(c, [1, 3, 6, 9], bs=3))
        g.add(op, "not_divisible", lambda c, sd=sd: sd(c, [1, 3, 5, 2], bs=2), golden=True)
        g.add(op, "rank3", lambda c, sd=sd: sd(c, [3, 4, 4]))
        g.add(op, "nchw", lambda c, sd=sd, shape=shape: sd(c, shape, fmt="NCHW"))
        g.add(op, "empty", lambda c, sd=sd: sd(c, [0, 4, 4, 4]))
        g.add(op, "grad_float",
              lambda c, f=f, shape=shape: _grad(c, lambda x: f(input=x, block_size=2), shape))


def matrix_band(g):
    op = "MatrixBandPart"

    def bp(c, shape, lo, up, t="float", ti=np.int64):
        return raw.MatrixBandPart(input=c.input(DTYPES[t], shape, name="x"),
                                  num_lower=c.feed(np.array(lo, ti), name="lo"),
                                  num_upper=c.feed(np.array(up, ti), name="up"))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bp(c, [2, 3, 4], 1, 2, t),
              golden=(t == "float"))
    g.add(op, "negative_bounds", lambda c: bp(c, [4, 3], -1, 0, ti=np.int32))
    g.add(op, "lower_too_large", lambda c: bp(c, [3, 4], 4, 0), golden=True)
    g.add(op, "rank1", lambda c: bp(c, [3], 0, 0))
    g.add(op, "bound_not_scalar", lambda c: bp(c, [3, 3], [0], 0))
    g.add(op, "empty", lambda c: bp(c, [0, 3, 3], 1, 1))
    g.add(op, "grad_float",
          lambda c: _grad(c, lambda x: raw.MatrixBandPart(
              input=x, num_lower=tf.constant(0, tf.int64), num_upper=tf.constant(1, tf.int64)),
              [3, 3]))


ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def matrix_diag(g):
    # MatrixDiagPart[V2,V3].
    for op in ("MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"):
        f = getattr(raw, op)

        def dp(c, shape, k=0, t="float", align=None, pad=9, f=f, op=op):
            x = c.input(DTYPES[t], shape, name="x")
            if op == "MatrixDiagPart":
                return f(input=x)
            kw = dict(input=x, k=c.feed(np.array(k, np.int32), name="k"),
                      padding_value=c.feed(_values(pad, t), dtype=DTYPES[t], name="pad"))
            if align:
                kw["align"] = align
            return f(**kw)

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, dp=dp: dp(c, [2, 3, 4], t=t),
                  golden=(t == "float"))
        g.add(op, "rank1", lambda c, dp=dp: dp(c, [3]))
        g.add(op, "empty", lambda c, dp=dp: dp(c, [0, 2, 2]))
        g.add(op, "grad_float", lambda c, f=f, op=op: _grad(
            c, lambda x: f(input=x) if op == "MatrixDiagPart" else
            f(input=x, k=tf.constant([-1, 1]), padding_value=tf.constant(0.0)), [3, 4]))
        if op == "MatrixDiagPart":
            continue
        g.add(op, "band", lambda c, dp=dp: dp(c, [2, 3, 4], [-1, 2]), golden=True)
        g.add(op, "single_k", lambda c, dp=dp: dp(c, [4, 3], -2))
        g.add(op, "k_out_of_bound", lambda c, dp=dp: dp(c, [3, 3], [0, 3]), golden=True)
        g.add(op, "k_reversed", lambda c, dp=dp: dp(c, [3, 3], [1, 0]))
        g.add(op, "k_three", lambda c, dp=dp: dp(c, [3, 3], [0, 1, 2]))
        if op == "MatrixDiagPartV3":
            for a in ALIGNS:
                g.add(op, "align_" + a.lower(),
                      lambda c, a=a, dp=dp: dp(c, [3, 5], [-2, 1], align=a))

    # MatrixDiag[V2,V3].
    for op in ("MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"):
        f = getattr(raw, op)

        def md(c, shape, k=0, rows=-1, cols=-1, t="float", align=None, pad=7, f=f, op=op):
            d = c.input(DTYPES[t], shape, name="d")
            if op == "MatrixDiag":
                return f(diagonal=d)
            kw = dict(diagonal=d, k=c.feed(np.array(k, np.int32), name="k"),
                      num_rows=c.feed(np.array(rows, np.int32), name="rows"),
                      num_cols=c.feed(np.array(cols, np.int32), name="cols"),
                      padding_value=c.feed(_values(pad, t), dtype=DTYPES[t], name="pad"))
            if align:
                kw["align"] = align
            return f(**kw)

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, md=md: md(c, [2, 3], t=t),
                  golden=(t == "float"))
        g.add(op, "scalar", lambda c, md=md: md(c, []))
        g.add(op, "empty", lambda c, md=md: md(c, [0, 2]))
        g.add(op, "grad_float", lambda c, f=f, op=op: _grad(
            c, lambda x: f(diagonal=x) if op == "MatrixDiag" else
            f(diagonal=x, k=tf.constant([-1, 1]), num_rows=tf.constant(-1),
              num_cols=tf.constant(-1), padding_value=tf.constant(0.0)), [2, 3, 2]
            if op != "MatrixDiag" else [2, 3]))
        if op == "MatrixDiag":
            continue
        g.add(op, "band", lambda c, md=md: md(c, [2, 3, 3], [-1, 1]), golden=True)
        g.add(op, "rectangular", lambda c, md=md: md(c, [2], 1, rows=3, cols=4))
        g.add(op, "rows_only", lambda c, md=md: md(c, [3], -1, rows=4))
        g.add(op, "rows_too_small", lambda c, md=md: md(c, [3], 0, rows=2), golden=True)
        g.add(op, "inconsistent", lambda c, md=md: md(c, [3], 0, rows=5, cols=5))
        g.add(op, "count_mismatch", lambda c, md=md: md(c, [2, 3], [0, 2]))
        if op == "MatrixDiagV3":
            for a in ALIGNS:
                g.add(op, "align_" + a.lower(),
                      lambda c, a=a, md=md: md(c, [3, 3], [-2, 0], align=a))

    # MatrixSetDiag[V2,V3].
    for op in ("MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"):
        f = getattr(raw, op)

        def ms(c, shape, dshape, k=0, t="float", align=None, f=f, op=op, static=False):
            x = c.input(DTYPES[t], shape, name="x", static=static)
            d = c.input(DTYPES[t], dshape, name="d", static=static)
            if op == "MatrixSetDiag":
                return x, d, f(input=x, diagonal=d)
            kw = dict(input=x, diagonal=d,
                      k=tf.constant(np.array(k, np.int32)) if static else
                      c.feed(np.array(k, np.int32), name="k"))
            if align:
                kw["align"] = align
            return x, d, f(**kw)

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, ms=ms: ms(c, [2, 3, 4], [2, 3], t=t)[2],
                  golden=(t == "float"))
        g.add(op, "diag_shape_mismatch", lambda c, ms=ms: ms(c, [3, 4], [4])[2],
              golden=True)
        g.add(op, "rank1", lambda c, ms=ms: ms(c, [3], [3])[2])
        g.add(op, "empty", lambda c, ms=ms: ms(c, [0, 2, 2], [0, 2])[2])
        g.add(op, "grad_float",
              lambda c, ms=ms, op=op: (lambda x, d, y: grads(c, [y], [x, d]))(
                  *ms(c, [3, 4], [3, 3] if op != "MatrixSetDiag" else [3],
                      [-1, 1] if op != "MatrixSetDiag" else 0, static=True)))
        if op == "MatrixSetDiag":
            continue
        g.add(op, "band", lambda c, ms=ms: ms(c, [2, 4, 3], [2, 2, 3], [-1, 0])[2],
              golden=True)
        g.add(op, "k_out_of_bound", lambda c, ms=ms: ms(c, [3, 3], [3], 3)[2])
        if op == "MatrixSetDiagV3":
            for a in ALIGNS:
                g.add(op, "align_" + a.lower(),
                      lambda c, a=a, ms=ms: ms(c, [3, 5], [4, 3], [-2, 1], align=a)[2])
