"""Op cases for pooling: MaxPool(V2), AvgPool, MaxPool3D, AvgPool3D,
MaxPoolWithArgmax and their gradient ops (MaxPoolGrad(V2), AvgPoolGrad,
MaxPool3DGrad, AvgPool3DGrad, MaxPoolGradGrad(V2), MaxPool3DGradGrad,
MaxPoolGradWithArgmax, MaxPoolGradGradWithArgmax).

Integer inputs are drawn from a few values, so windows hold ties: the
gradients must pick the maximum TensorFlow picks. Each function adds one
op's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, grads, np_type, raw, set_attr
import numpy as np
import tensorflow as tf

K2 = [1, 2, 2, 1]
K3 = [1, 3, 3, 1]
S1 = [1, 1, 1, 1]
S2 = [1, 2, 2, 1]
K3D = [1, 2, 2, 2, 1]
S3D = [1, 2, 2, 2, 1]


def np_max_pool_2x2(x):
    """numpy MaxPool, 2x2 windows, stride 2, VALID (even sizes)."""
    b, h, w, c = x.shape
    return x.reshape(b, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def tied_values(c, dtype, shape):
    """Values with many ties (multiples of 1/2 in [-1, 1]; 0..2 unsigned)."""
    v = c.rng.randint(-2, 3, size=shape) / 2.0
    if not tf.as_dtype(dtype).is_floating:
        v = np.round(v * 2)
    if tf.as_dtype(dtype).is_unsigned:
        v = np.abs(v)
    return v.astype(np_type(dtype))


def tied(c, dtype, shape, name="x", static=False):
    return c.feed(tied_values(c, dtype, shape), dtype=dtype, name=name, static=static)


def max_pool(g):
    for op in ("MaxPool", "MaxPoolV2"):
        v2 = op == "MaxPoolV2"

        def mp(c, x, k, s, pad, fmt="NHWC", v2=v2, **kw):
            if v2:
                return raw.MaxPoolV2(input=x, ksize=c.feed(np.array(k, np.int32), name="k"),
                                     strides=c.feed(np.array(s, np.int32), name="s"),
                                     padding=pad, data_format=fmt)
            return raw.MaxPool(input=x, ksize=k, strides=s, padding=pad,
                               data_format=fmt, **kw)

        for t in g.types(op):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, mp=mp: mp(c, c.input(DTYPES[t], [2, 4, 4, 3], name="x"),
                                           K2, S2, "VALID"),
                  golden=(t == "float"))
        for pad in ("SAME", "VALID"):
            for shape, k, s in (([1, 5, 5, 2], K3, S2), ([2, 6, 5, 1], [1, 2, 3, 1], [1, 1, 2, 1]),
                                ([1, 7, 3, 2], [1, 4, 1, 1], [1, 3, 1, 1])):
                name = "%s_%s" % (pad.lower(), "x".join(map(str, k[1:3] + s[1:3])))
                g.add(op, name,
                      lambda c, shape=shape, k=k, s=s, pad=pad, mp=mp:
                      mp(c, c.input(tf.float32, shape, name="x"), k, s, pad),
                      golden=(pad == "SAME" and k == K3))
        g.add(op, "window_exceeds_input", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 2, 2, 1], name="x"), K3, S1, "VALID"))
        g.add(op, "negative_output", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 1, 1, 1], name="x"), [1, 4, 4, 1], S1, "VALID"))
        g.add(op, "empty_batch", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [0, 4, 4, 2], name="x"), K2, S2, "SAME"))
        g.add(op, "depth_pool", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [2, 3, 3, 4], name="x"), [1, 1, 1, 2], [1, 1, 1, 2],
            "VALID"))
        g.add(op, "depth_pool_same", lambda c, mp=mp: mp(
            c, c.input(tf.int32, [1, 2, 3, 6], name="x"), [1, 1, 1, 3], [1, 1, 1, 3],
            "SAME"))
        g.add(op, "depth_not_dividing", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 3, 3, 3], name="x"), [1, 1, 1, 2], [1, 1, 1, 2],
            "VALID"))
        g.add(op, "depth_stride_differs", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 3, 3, 4], name="x"), [1, 1, 1, 2], [1, 1, 1, 1],
            "VALID"))
        g.add(op, "depth_and_spatial", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 3, 3, 4], name="x"), [1, 2, 2, 2], [1, 1, 1, 2],
            "VALID"))
        g.add(op, "batch_window", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [2, 3, 3, 1], name="x"), [2, 1, 1, 1], S1, "VALID"))
        g.add(op, "zero_window", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 3, 3, 1], name="x"), [1, 0, 1, 1], S1, "VALID"))
        g.add(op, "rank3", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [3, 3, 1], name="x"), K2, S1, "VALID"))
        g.add(op, "nchw", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 2, 4, 4], name="x"), [1, 1, 2, 2], [1, 1, 2, 2],
            "VALID", "NCHW"))
        g.add(op, "nchw_vect_c", lambda c, mp=mp: mp(
            c, c.input(tf.float32, [1, 1, 4, 4, 4], name="x", static=True), [1, 1, 2, 2],
            [1, 1, 2, 2],
            "VALID", "NCHW_VECT_C"))
        g.add(op, "nchw_vect_c_stride", lambda c, mp=mp: mp(
            c, c.input(tf.int32, [2, 2, 5, 4, 4], name="x", static=True), [1, 1, 3, 2],
            [1, 1, 2, 1], "SAME", "NCHW_VECT_C"))
        g.add(op, "ties_int", lambda c, mp=mp: mp(
            c, tied(c, tf.int32, [1, 4, 4, 2]), K3, S1, "SAME"))
    nan_x = np.array([np.nan, 1, 2, np.nan, -1, np.nan, 3, 0, np.nan] * 4,
                     np.float32).reshape(1, 3, 3, 4)
    nan_x[0, :, :, 1] = np.nan
    g.add("MaxPool", "nan", lambda c: raw.MaxPool(
        input=c.feed(nan_x, name="x"), ksize=K2, strides=S1, padding="SAME"),
          note="NaN handling follows Eigen's coefficient-wise max")
    # Attr forms only MaxPool (V1) has.
    op = "MaxPool"
    f = raw.MaxPool
    for name, pads, k, s in (
            ("explicit", [0, 0, 1, 2, 2, 1, 0, 0], K3, S2),
            ("explicit_zero", [0] * 8, K2, S1),
            ("explicit_large", [0, 0, 3, 3, 0, 0, 0, 0], K2, S1),
            ("explicit_large_right", [0, 0, 0, 0, 1, 2, 0, 0], K2, S1),
            ("explicit_window_edge", [0, 0, 1, 0, 0, 1, 0, 0], K2, S1),
):
        g.add(op, name,
              lambda c, pads=pads, k=k, s=s: f(
                  input=c.input(tf.float32, [1, 5, 4, 2], name="x"), ksize=k, strides=s,
                  padding="EXPLICIT", explicit_paddings=pads),
              golden=(name == "explicit"))
    g.add(op, "ksize_short", lambda c: _spec_edit(
        f(input=c.input(tf.float32, [1, 3, 3, 1], name="x"), ksize=K2, strides=S1,
          padding="VALID"), set_attr("MaxPool", "ksize", [1, 2, 2])))
    # Attrs TensorFlow's shape functions refuse, set in the GraphDef.
    for name, attr, value in (
            ("explicit_batch_pad", "explicit_paddings", [1, 0, 0, 0, 0, 0, 0, 0]),
            ("explicit_negative", "explicit_paddings", [0, 0, -1, 0, 0, 0, 0, 0]),
            ("explicit_short", "explicit_paddings", [0, 0, 1, 1]),
            ("zero_stride", "strides", [1, 0, 1, 1])):
        g.add(op, name, lambda c, attr=attr, value=value: _spec_edit(
            f(input=c.input(tf.float32, [1, 5, 4, 2], name="x"), ksize=K2, strides=S1,
              padding="EXPLICIT", explicit_paddings=[0] * 8),
            set_attr("MaxPool", attr, value)))
    g.add(op, "ksize_long", lambda c: _spec_edit(
        f(input=c.input(tf.float32, [1, 3, 3, 1], name="x"), ksize=K2, strides=S1,
          padding="VALID"), set_attr("MaxPool", "ksize", [1, 2, 2, 1, 1])))
    g.add(op, "strides_long", lambda c: _spec_edit(
        f(input=c.input(tf.float32, [1, 3, 3, 1], name="x"), ksize=K2, strides=S1,
          padding="VALID"), set_attr("MaxPool", "strides", [1, 1, 1, 1, 1])))
    for t in ("float", "double"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda x: grads(c, [f(input=x, ksize=K3, strides=S2,
                                                      padding="SAME")], [x]))(
                  c.input(DTYPES[t], [2, 5, 5, 3], name="x", static=True)),
              golden=(t == "float"))
    g.add(op, "grad_explicit",
          lambda c: (lambda x: grads(c, [f(input=x, ksize=K3, strides=S2, padding="EXPLICIT",
                                           explicit_paddings=[0, 0, 1, 1, 2, 0, 0, 0])],
                                     [x]))(
              c.input(tf.float32, [1, 5, 5, 2], name="x", static=True)))
    g.add(op, "grad_ties",
          lambda c: (lambda x: grads(c, [f(input=x, ksize=K3, strides=S1, padding="SAME")],
                                     [x]))(tied(c, tf.float32, [1, 4, 4, 2], static=True)),
          note="windows hold equal maxima")
    g.add(op, "grad_grad",
          lambda c: (lambda x: (lambda y: _grad_grad(c, y, x))(
              f(input=x, ksize=K2, strides=S2, padding="VALID")))(
              c.input(tf.float32, [1, 4, 4, 2], name="x", static=True)))
    op = "MaxPoolV2"
    g.add(op, "grad_float",
          lambda c: (lambda x: grads(c, [raw.MaxPoolV2(
              input=x, ksize=tf.constant(K3), strides=tf.constant(S2), padding="SAME")],
              [x]))(c.input(tf.float32, [2, 5, 5, 3], name="x", static=True)),
          golden=True)
    g.add(op, "ksize_matrix", lambda c: raw.MaxPoolV2(
        input=c.input(tf.float32, [1, 4, 4, 1], name="x"),
        ksize=c.feed(np.array([[1, 2], [2, 1]], np.int32), name="k"),
        strides=c.feed(np.array(S1, np.int32), name="s"), padding="VALID"))
    g.add(op, "ksize_three", lambda c: raw.MaxPoolV2(
        input=c.input(tf.float32, [1, 4, 4, 1], name="x"),
        ksize=c.feed(np.array([1, 2, 2], np.int32), name="k"),
        strides=c.feed(np.array(S1, np.int32), name="s"), padding="VALID"))


def _spec_edit(y, edit):
    return Spec(fetches=[y], edit=edit)


def _grad_grad(c, y, x):
    """d/d(dy) of tf.gradients(y, x, dy): the MaxPoolGradGrad graph."""
    dy = c.input(y.dtype, y.shape.as_list(), name="dy", static=True)
    dx = tf.gradients([y], [x], grad_ys=[dy])[0]
    return grads(c, [dx], [dy])


def max_pool_grad(g):
    """MaxPoolGrad(V2) raw: orig_output is fed arbitrary values (TensorFlow's
    CPU kernel finds the maxima again from orig_input)."""
    for op in ("MaxPoolGrad", "MaxPoolGradV2"):
        v2 = op == "MaxPoolGradV2"

        def mpg(c, t, xs, ys, k, s, pad, fmt="NHWC", dys=None, v2=v2, x=None):
            x = tied(c, DTYPES[t], xs) if x is None else x
            y = c.input(DTYPES[t], ys, name="y")
            dy = c.input(DTYPES[t], ys if dys is None else dys, name="dy")
            if v2:
                return raw.MaxPoolGradV2(
                    orig_input=x, orig_output=y, grad=dy,
                    ksize=c.feed(np.array(k, np.int32), name="k"),
                    strides=c.feed(np.array(s, np.int32), name="s"), padding=pad,
                    data_format=fmt)
            return raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=dy, ksize=k,
                                   strides=s, padding=pad, data_format=fmt)

        for t in g.types(op):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, mpg=mpg: mpg(c, t, [2, 4, 4, 3], [2, 2, 2, 3], K2, S2,
                                              "VALID"),
                  golden=(t == "float"))
        g.add(op, "same_overlapping", lambda c, mpg=mpg: mpg(
            c, "float", [1, 5, 5, 2], [1, 5, 5, 2], K3, S1, "SAME"), golden=True)
        g.add(op, "same_stride2", lambda c, mpg=mpg: mpg(
            c, "float", [2, 5, 4, 2], [2, 3, 2, 2], K3, S2, "SAME"))
        g.add(op, "grad_shape_mismatch", lambda c, mpg=mpg: mpg(
            c, "float", [1, 4, 4, 1], [1, 2, 2, 1], K2, S2, "VALID", dys=[1, 3, 2, 1]))
        g.add(op, "orig_output_shape_mismatch", lambda c, mpg=mpg: mpg(
            c, "float", [1, 4, 4, 1], [1, 3, 2, 1], K2, S2, "VALID", dys=[1, 2, 2, 1]))
        g.add(op, "rank3", lambda c, mpg=mpg: mpg(
            c, "float", [4, 4, 1], [2, 2, 1], K2, S2, "VALID"))
        g.add(op, "nchw", lambda c, mpg=mpg: mpg(
            c, "float", [1, 1, 4, 4], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2], "VALID",
            "NCHW"))
        g.add(op, "depth_window", lambda c, mpg=mpg: mpg(
            c, "float", [1, 2, 2, 4], [1, 2, 2, 2], [1, 1, 1, 2], [1, 1, 1, 2], "VALID"))
        g.add(op, "empty", lambda c, mpg=mpg: mpg(
            c, "float", [0, 4, 4, 1], [0, 2, 2, 1], K2, S2, "VALID"))
    g.add("MaxPoolGrad", "explicit", lambda c: raw.MaxPoolGrad(
        orig_input=tied(c, tf.float32, [1, 4, 5, 2]),
        orig_output=c.input(tf.float32, [1, 3, 3, 2], name="y"),
        grad=c.input(tf.float32, [1, 3, 3, 2], name="dy"), ksize=K3, strides=S2,
        padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0]))


def max_pool_grad_grad(g):
    for op in ("MaxPoolGradGrad", "MaxPoolGradGradV2"):
        v2 = op == "MaxPoolGradGradV2"

        def mpgg(c, t, xs, k, s, pad, consistent=True, v2=v2, dd=None):
            xv = tied_values(c, DTYPES[t], xs)
            x = c.feed(xv, dtype=DTYPES[t], name="x")
            if consistent:
                yv = np_max_pool_2x2(xv)
            else:
                yv = c.rand(DTYPES[t], np_max_pool_2x2(xv).shape)
            y = c.feed(yv, dtype=DTYPES[t], name="y")
            ddx = c.input(DTYPES[t], xs if dd is None else dd, name="ddx")
            if v2:
                return raw.MaxPoolGradGradV2(
                    orig_input=x, orig_output=y, grad=ddx,
                    ksize=c.feed(np.array(k, np.int32), name="k"),
                    strides=c.feed(np.array(s, np.int32), name="s"), padding=pad)
            return raw.MaxPoolGradGrad(orig_input=x, orig_output=y, grad=ddx, ksize=k,
                                       strides=s, padding=pad)

        for t in g.types(op):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, mpgg=mpgg: mpgg(c, t, [2, 4, 4, 3], K2, S2, "VALID"),
                  golden=(t == "float"))
        g.add(op, "inconsistent_orig_output", lambda c, mpgg=mpgg: mpgg(
            c, "int32", [1, 4, 4, 2], K2, S2, "VALID", consistent=False),
              golden=True, note="no window pixel equals orig_output: 0")
        g.add(op, "grad_shape_mismatch", lambda c, mpgg=mpgg: mpgg(
            c, "float", [1, 4, 4, 2], K2, S2, "VALID", dd=[1, 4, 3, 2]))
        g.add(op, "same_padding", lambda c, mpgg=mpgg: mpgg(
            c, "float", [1, 4, 4, 2], K2, S2, "SAME"))
    g.add("MaxPoolGradGrad", "second_order_same",
          lambda c: (lambda x: _grad_grad(c, raw.MaxPool(
              input=x, ksize=K3, strides=S2, padding="SAME"), x))(
              tied(c, tf.float32, [2, 5, 5, 2], static=True)))


def avg_pool(g):
    op = "AvgPool"
    f = raw.AvgPool

    def ap(c, t, shape, k, s, pad, fmt="NHWC"):
        return f(value=c.input(DTYPES[t], shape, name="x"), ksize=k, strides=s,
                 padding=pad, data_format=fmt)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ap(c, t, [2, 4, 4, 3], K2, S2, "VALID"),
              golden=(t == "float"))
    for t in ("half", "bfloat16"):
        g.add(op, "same_" + t, lambda c, t=t: ap(c, t, [1, 5, 5, 3], K3, S1, "SAME"))
    for pad in ("SAME", "VALID"):
        for shape, k, s in (([1, 5, 5, 2], K3, S2), ([2, 6, 5, 1], [1, 2, 3, 1], [1, 1, 2, 1]),
                            ([1, 7, 3, 2], [1, 4, 1, 1], [1, 3, 1, 1])):
            name = "%s_%s" % (pad.lower(), "x".join(map(str, k[1:3] + s[1:3])))
            g.add(op, name, lambda c, shape=shape, k=k, s=s, pad=pad:
                  ap(c, "float", shape, k, s, pad),
                  golden=(pad == "SAME" and k == K3))
    g.add(op, "nchw", lambda c: ap(c, "float", [1, 2, 4, 4], [1, 1, 2, 2], [1, 1, 2, 2],
                                   "VALID", "NCHW"))
    g.add(op, "depth_window", lambda c: ap(c, "float", [1, 2, 2, 4], [1, 1, 1, 2],
                                           [1, 1, 1, 2], "VALID"))
    g.add(op, "batch_window", lambda c: ap(c, "float", [2, 2, 2, 1], [2, 1, 1, 1], S1,
                                           "VALID"))
    g.add(op, "rank5", lambda c: ap(c, "float", [1, 2, 2, 2, 1], K2, S1, "VALID"))
    g.add(op, "negative_output", lambda c: ap(c, "float", [1, 1, 1, 1], [1, 4, 4, 1], S1,
                                              "VALID"))
    g.add(op, "window_exceeds_input", lambda c: ap(c, "float", [1, 2, 2, 1], K3, S1,
                                                   "VALID"))
    g.add(op, "empty_batch", lambda c: ap(c, "float", [0, 3, 3, 1], K2, S1, "SAME"))
    for t in ("float", "double", "half"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda x: grads(c, [f(value=x, ksize=K3, strides=S2,
                                                      padding="SAME")], [x]))(
                  c.input(DTYPES[t], [2, 5, 5, 3], name="x", static=True)),
              golden=(t == "float"))
    g.add(op, "grad_valid",
          lambda c: (lambda x: grads(c, [f(value=x, ksize=[1, 2, 3, 1], strides=[1, 1, 2, 1],
                                           padding="VALID")], [x]))(
              c.input(tf.float32, [1, 5, 6, 2], name="x", static=True)))
    op = "AvgPoolGrad"

    def apg(c, t, shape, dys, k, s, pad, shape_dtype=np.int32):
        return raw.AvgPoolGrad(orig_input_shape=c.feed(np.array(shape, shape_dtype),
                                                       name="shape"),
                               grad=c.input(DTYPES[t], dys, name="dy"), ksize=k, strides=s,
                               padding=pad)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: apg(c, t, [2, 4, 4, 3], [2, 2, 2, 3], K2, S2,
                                                   "VALID"),
              golden=(t == "float"))
    g.add(op, "same_overlapping", lambda c: apg(c, "float", [1, 5, 4, 2], [1, 5, 4, 2], K3,
                                                S1, "SAME"))
    g.add(op, "shape_rank2", lambda c: raw.AvgPoolGrad(
        orig_input_shape=c.feed(np.array([[1, 4], [4, 1]], np.int32), name="shape"),
        grad=c.input(tf.float32, [1, 2, 2, 1], name="dy"), ksize=K2, strides=S2,
        padding="VALID"))
    g.add(op, "shape_three", lambda c: apg(c, "float", [1, 4, 4], [1, 2, 2, 1], K2, S2,
                                           "VALID"))
    g.add(op, "grad_rank3", lambda c: apg(c, "float", [1, 4, 4, 1], [2, 2, 1], K2, S2,
                                          "VALID"))
    g.add(op, "negative_dim", lambda c: apg(c, "float", [1, -4, 4, 1], [1, 2, 2, 1], K2,
                                            S2, "VALID"))


def pool3d(g):
    for op, f in (("MaxPool3D", raw.MaxPool3D), ("AvgPool3D", raw.AvgPool3D)):
        def p3(c, t, shape, k, s, pad, fmt="NDHWC", f=f):
            return f(input=c.input(DTYPES[t], shape, name="x"), ksize=k, strides=s,
                     padding=pad, data_format=fmt)
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, p3=p3: p3(c, t, [2, 4, 4, 4, 2], K3D, S3D,
                                                             "VALID"),
                  golden=(t == "float"))
        g.add(op, "same", lambda c, p3=p3: p3(c, "float", [1, 3, 5, 4, 2], [1, 2, 3, 2, 1],
                                              [1, 1, 2, 2, 1], "SAME"), golden=True)
        g.add(op, "valid_stride", lambda c, p3=p3: p3(c, "float", [1, 5, 4, 3, 1],
                                                      [1, 3, 2, 2, 1], [1, 2, 1, 2, 1],
                                                      "VALID"))
        g.add(op, "ncdhw", lambda c, p3=p3: p3(c, "float", [1, 2, 4, 4, 4], [1, 1, 2, 2, 2],
                                               [1, 1, 2, 2, 2], "VALID", "NCDHW"))
        g.add(op, "depth_window", lambda c, p3=p3: p3(c, "float", [1, 2, 2, 2, 4],
                                                      [1, 1, 1, 1, 2], [1, 1, 1, 1, 2],
                                                      "VALID"))
        g.add(op, "batch_window", lambda c, p3=p3: p3(c, "float", [2, 2, 2, 2, 1],
                                                      [2, 1, 1, 1, 1], [1, 1, 1, 1, 1],
                                                      "VALID"))
        g.add(op, "rank4", lambda c, p3=p3: p3(c, "float", [2, 2, 2, 1], K3D, S3D, "VALID"))
        g.add(op, "negative_output", lambda c, p3=p3: p3(c, "float", [1, 1, 1, 1, 1],
                                                         [1, 3, 3, 3, 1], [1, 1, 1, 1, 1],
                                                         "VALID"))
        for t in ("float", "bfloat16"):
            g.add(op, "grad_" + t,
                  lambda c, t=t, f=f: (lambda x: grads(c, [f(
                      input=x, ksize=[1, 2, 3, 2, 1], strides=[1, 1, 2, 2, 1],
                      padding="SAME")], [x]))(
                      tied(c, DTYPES[t], [2, 3, 5, 4, 2], static=True)),
                  golden=(t == "float"))
    g.add("MaxPool3D", "grad_grad",
          lambda c: (lambda x: _grad_grad(c, raw.MaxPool3D(
              input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 1, 2, 2, 1], padding="SAME"), x))(
              tied(c, tf.float32, [1, 3, 4, 4, 2], static=True)))
    op = "MaxPool3DGrad"

    def m3g(c, t, xs, ys, k, s, pad, dys=None, tin=None, consistent=True):
        tin = t if tin is None else tin
        xv = tied_values(c, DTYPES[tin], xs)
        x = c.feed(xv, dtype=DTYPES[tin], name="x")
        y = c.feed(_np_pool3d_max(xv, k, s) if consistent else c.rand(DTYPES[tin], ys),
                   dtype=DTYPES[tin], name="y")
        dy = c.input(DTYPES[t], ys if dys is None else dys, name="dy")
        return raw.MaxPool3DGrad(orig_input=x, orig_output=y, grad=dy, ksize=k, strides=s,
                                 padding=pad)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: m3g(c, t, [1, 4, 4, 4, 2], [1, 2, 2, 2, 2],
                                                   K3D, S3D, "VALID"),
              golden=(t == "float"))
    g.add(op, "mixed_types", lambda c: m3g(c, "float", [1, 4, 4, 4, 2], [1, 2, 2, 2, 2],
                                           K3D, S3D, "VALID", tin="bfloat16"))
    g.add(op, "inconsistent_orig_output", lambda c: m3g(
        c, "float", [1, 4, 4, 4, 1], [1, 2, 2, 2, 1], K3D, S3D, "VALID", consistent=False))
    g.add(op, "grad_shape_mismatch", lambda c: m3g(
        c, "float", [1, 4, 4, 4, 1], [1, 2, 2, 2, 1], K3D, S3D, "VALID",
        dys=[1, 2, 2, 3, 1]))
    op = "MaxPool3DGradGrad"
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: _m3gg(c, t, True), golden=(t == "float"))
    g.add(op, "inconsistent_orig_output", lambda c: _m3gg(c, "float", False))
    op = "AvgPool3DGrad"
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: raw.AvgPool3DGrad(
            orig_input_shape=c.feed(np.array([1, 4, 4, 4, 2], np.int32), name="shape"),
            grad=c.input(DTYPES[t], [1, 2, 2, 2, 2], name="dy"), ksize=K3D, strides=S3D,
            padding="VALID"), golden=(t == "float"))
    g.add(op, "same", lambda c: raw.AvgPool3DGrad(
        orig_input_shape=c.feed(np.array([1, 3, 5, 4, 2], np.int32), name="shape"),
        grad=c.input(tf.float32, [1, 3, 3, 2, 2], name="dy"), ksize=[1, 2, 3, 2, 1],
        strides=[1, 1, 2, 2, 1], padding="SAME"))
    g.add(op, "shape_four", lambda c: raw.AvgPool3DGrad(
        orig_input_shape=c.feed(np.array([1, 4, 4, 4], np.int32), name="shape"),
        grad=c.input(tf.float32, [1, 2, 2, 2, 2], name="dy"), ksize=K3D, strides=S3D,
        padding="VALID"))


def _np_pool3d_max(x, k, s):
    """numpy MaxPool3D, VALID."""
    b, d, h, w, ch = x.shape
    od, oh, ow = [(n - kk) // ss + 1 for n, kk, ss in zip((d, h, w), k[1:4], s[1:4])]
    out = np.zeros((b, od, oh, ow, ch), x.dtype)
    for i in range(od):
        for j in range(oh):
            for l in range(ow):
                out[:, i, j, l, :] = x[:, i * s[1]:i * s[1] + k[1], j * s[2]:j * s[2] + k[2],
                                       l * s[3]:l * s[3] + k[3], :].max(axis=(1, 2, 3))
    return out


def _m3gg(c, t, consistent):
    xs = [1, 4, 4, 4, 2]
    xv = tied_values(c, DTYPES[t], xs)
    yv = _np_pool3d_max(xv, K3D, S3D)
    if not consistent:
        yv = c.rand(DTYPES[t], yv.shape)
    return raw.MaxPool3DGradGrad(
        orig_input=c.feed(xv, dtype=DTYPES[t], name="x"),
        orig_output=c.feed(yv, dtype=DTYPES[t], name="y"),
        grad=c.input(DTYPES[t], xs, name="ddx"), ksize=K3D, strides=S3D, padding="VALID")


def with_argmax(g):
    op = "MaxPoolWithArgmax"
    f = raw.MaxPoolWithArgmax
    for t in g.types(op):
        for ta in ("int64", "int32"):
            if ta == "int32" and t != "float":
                continue
            g.add(op, "dtype_%s_%s" % (t, ta), lambda c, t=t, ta=ta: list(f(
                input=tied(c, DTYPES[t], [2, 4, 4, 3]), ksize=K2, strides=S2, padding="VALID",
                Targmax=DTYPES[ta])),
                  golden=(t == "float" and ta == "int64"))
    for batch in (False, True):
        g.add(op, "same_batch_index_%s" % str(batch).lower(), lambda c, batch=batch: list(f(
            input=tied(c, tf.float32, [2, 5, 5, 2]), ksize=K3, strides=S2, padding="SAME",
            include_batch_in_index=batch)), golden=batch)
    g.add(op, "batch_window", lambda c: list(f(
        input=c.input(tf.float32, [2, 2, 2, 1], name="x"), ksize=[2, 1, 1, 1], strides=S1,
        padding="VALID")))
    g.add(op, "depth_window", lambda c: list(f(
        input=c.input(tf.float32, [1, 2, 2, 4], name="x"), ksize=[1, 1, 1, 2],
        strides=[1, 1, 1, 2], padding="VALID")))
    g.add(op, "depth_window_not_dividing", lambda c: list(f(
        input=c.input(tf.float32, [1, 2, 2, 3], name="x"), ksize=[1, 1, 1, 2],
        strides=[1, 1, 1, 2], padding="VALID")))
    g.add(op, "depth_window_strided", lambda c: list(f(
        input=c.input(tf.float32, [1, 3, 3, 4], name="x"), ksize=[1, 1, 1, 2],
        strides=[1, 2, 2, 2], padding="SAME")))
    g.add(op, "rank3", lambda c: list(f(
        input=c.input(tf.float32, [2, 2, 1], name="x"), ksize=K2, strides=S1,
        padding="VALID")))
    for batch in (False, True):
        g.add(op, "grad_batch_index_%s" % str(batch).lower(),
              lambda c, batch=batch: (lambda x: grads(c, [f(
                  input=x, ksize=K3, strides=S2, padding="SAME",
                  include_batch_in_index=batch)[0]], [x]))(
                  tied(c, tf.float32, [2, 5, 5, 2], static=True)), golden=not batch)
    op = "MaxPoolGradWithArgmax"

    def mga(c, t, argmax, batch=False, ta=tf.int64, xs=(2, 4, 4, 1), dys=(2, 2, 2, 1)):
        return raw.MaxPoolGradWithArgmax(
            input=c.input(DTYPES[t], list(xs), name="x"),
            grad=c.input(DTYPES[t], list(dys), name="dy"),
            argmax=c.feed(np.array(argmax).astype(ta.as_numpy_dtype), name="argmax"),
            ksize=K2, strides=S2, padding="VALID", include_batch_in_index=batch)
    arg = np.array([[0, 3, 8, 15], [5, 2, 13, 10]]).reshape(2, 2, 2, 1)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: mga(c, t, arg), golden=(t == "float"))
    g.add(op, "int32_argmax", lambda c: mga(c, "float", arg, ta=tf.int32))
    g.add(op, "batch_index", lambda c: mga(c, "float", arg + np.array([0, 16]).reshape(
        2, 1, 1, 1), batch=True))
    g.add(op, "repeated_index", lambda c: mga(c, "float", np.zeros([2, 2, 2, 1], np.int64)))
    # No case for argmax indices outside the input: TensorFlow's CPU kernel
    # aborts the process (a CHECK) where stepflow fails the step with
    # InvalidArgument (known_differences.txt).
    g.add(op, "argmax_shape_mismatch", lambda c: mga(c, "float", arg.reshape(2, 2, 1, 2)))
    g.add(op, "grad_shape_mismatch", lambda c: mga(c, "float", arg, dys=(2, 2, 1, 2)))
    op = "MaxPoolGradGradWithArgmax"
    g.add(op, "no_cpu_kernel", lambda c: raw.MaxPoolGradGradWithArgmax(
        input=c.input(tf.float32, [2, 4, 4, 1], name="x"),
        grad=c.input(tf.float32, [2, 4, 4, 1], name="ddx"),
        argmax=c.feed(arg, name="argmax"), ksize=K2, strides=S2, padding="VALID"),
          golden=True, note="TensorFlow registers no CPU kernel (GPU only); neither does stepflow")


def pooling(g):
    max_pool(g)
    max_pool_grad(g)
    max_pool_grad_grad(g)
    avg_pool(g)
    pool3d(g)
    with_argmax(g)
    large(g)


def large(g):
    """Inputs large enough that the kernels split their work over the
    Scheduler's threads (ShardedOpKernel): results must not change."""
    shape = [4, 32, 32, 16]
    g.add("MaxPool", "large_grad",
          lambda c: (lambda x: [raw.MaxPool(input=x, ksize=K3, strides=S2, padding="SAME")] +
                     grads(c, [raw.MaxPool(input=x, ksize=K3, strides=S2, padding="SAME")],
                           [x]))(tied(c, tf.float32, shape, static=True)))
    g.add("AvgPool", "large_grad",
          lambda c: (lambda x: [raw.AvgPool(value=x, ksize=K3, strides=S1, padding="SAME")] +
                     grads(c, [raw.AvgPool(value=x, ksize=K3, strides=S1, padding="SAME")],
                           [x]))(c.input(tf.float32, shape, name="x", static=True)))
    g.add("MaxPool3D", "large_grad",
          lambda c: (lambda x: grads(c, [raw.MaxPool3D(input=x, ksize=K3D, strides=[1, 1, 1, 1, 1],
                                                       padding="SAME")], [x]))(
              tied(c, tf.float32, [2, 8, 16, 16, 8], static=True)))
