"""Op cases for the neural-network ops: BiasAdd/BiasAddGrad, L2Loss,
Softmax/LogSoftmax and the softmax cross-entropy losses.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, np_type, raw
import numpy as np
import tensorflow as tf


def bias_add(g):
    op = "BiasAdd"
    f = raw.BiasAdd

    def ba(c, t, vs, bs, fmt="NHWC", static=False):
        v = c.input(DTYPES[t], vs, name="value", static=static)
        b = c.input(DTYPES[t], bs, name="bias", static=static)
        return v, b, f(value=v, bias=b, data_format=fmt)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ba(c, t, [2, 3], [3])[2],
              golden=(t == "float"))
    g.add(op, "nhwc_rank4", lambda c: ba(c, "float", [2, 2, 2, 3], [3])[2])
    g.add(op, "nchw_rank4", lambda c: ba(c, "float", [2, 3, 2, 2], [3], "NCHW")[2],
          golden=True)
    g.add(op, "nchw_rank3", lambda c: ba(c, "float", [2, 3, 4], [3], "NCHW")[2])
    g.add(op, "nchw_rank2", lambda c: ba(c, "float", [2, 3], [3], "NCHW")[2])
    g.add(op, "nchw_rank5", lambda c: ba(c, "float", [1, 3, 2, 2, 2], [3], "NCHW")[2])
    g.add(op, "bias_mismatch", lambda c: ba(c, "float", [2, 3], [4])[2])
    g.add(op, "bias_rank2", lambda c: ba(c, "float", [2, 3], [1, 3])[2])
    g.add(op, "value_rank1", lambda c: ba(c, "float", [3], [3])[2])
    g.add(op, "empty", lambda c: ba(c, "float", [0, 3], [3])[2])
    for fmt, vs in (("NHWC", [2, 2, 3]), ("NCHW", [2, 3, 2, 2])):
        g.add(op, "grad_" + fmt.lower(),
              lambda c, fmt=fmt, vs=vs: (lambda v, b, y: grads(c, [y], [v, b]))(
                  *ba(c, "float", vs, [3], fmt, static=True)),
              golden=(fmt == "NHWC"))


def bias_add_grad(g):
    op = "BiasAddGrad"
    f = raw.BiasAddGrad
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(out_backprop=c.input(DTYPES[t], [2, 3], name="dy")),
              golden=(t == "float"))
    for fmt, shape in (("NHWC", [2, 2, 2, 3]), ("NCHW", [2, 3, 2, 2]),
                       ("NCHW", [2, 3]), ("NCHW", [2, 3, 4]), ("NHWC", [3])):
        g.add(op, "%s_rank%d" % (fmt.lower(), len(shape)),
              lambda c, fmt=fmt, shape=shape: f(
                  out_backprop=c.input(tf.float32, shape, name="dy"), data_format=fmt),
              golden=(fmt == "NCHW" and len(shape) == 4))
    g.add(op, "empty", lambda c: f(out_backprop=c.input(tf.float32, [0, 3], name="dy")))


def l2loss(g):
    op = "L2Loss"
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: raw.L2Loss(t=c.input(DTYPES[t], [2, 3], name="t")),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: raw.L2Loss(t=c.input(tf.float32, [], name="t")))
    g.add(op, "empty", lambda c: raw.L2Loss(t=c.input(tf.float32, [0, 3], name="t")))
    g.add(op, "larger", lambda c: raw.L2Loss(t=c.input(tf.float32, [40, 50], name="t")))
    for t in ("float", "double"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda x: grads(c, [raw.L2Loss(t=x)], [x]))(
                  c.input(DTYPES[t], [2, 3], name="t", static=True)),
              golden=(t == "float"))


def softmax(g, op):
    f = getattr(raw, op)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: f(logits=c.input(DTYPES[t], [2, 3], name="x")),
              golden=(t == "float"))
    g.add(op, "rank1", lambda c: f(logits=c.input(tf.float32, [4], name="x")))
    g.add(op, "rank3", lambda c: f(logits=c.input(tf.float32, [2, 2, 3], name="x")))
    g.add(op, "scalar", lambda c: f(logits=c.input(tf.float32, [], name="x")))
    g.add(op, "empty", lambda c: f(logits=c.input(tf.float32, [0, 3], name="x")))
    g.add(op, "large_values",
          lambda c: f(logits=c.feed(np.array([[1000, 0, -1000], [88, 89, 90]],
                                             np.float32), name="x")),
          note="stability: the max is subtracted first")
    g.add(op, "neg_inf",
          lambda c: f(logits=c.feed(np.array([[-np.inf, 0, 1]], np.float32), name="x")))
    for t in ("float", "double"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda x: grads(c, [f(logits=x)], [x]))(
                  c.input(DTYPES[t], [2, 3], name="x", static=True)),
              golden=(t == "float"))


def softmax_xent(g):
    op = "SoftmaxCrossEntropyWithLogits"
    f = raw.SoftmaxCrossEntropyWithLogits

    def labels(c, t, shape):
        v = c.rng.uniform(0, 1, size=shape)
        v = v / v.sum(axis=-1, keepdims=True)
        return c.feed(v.astype(np_type(DTYPES[t])), name="labels")

    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: list(f(features=c.input(DTYPES[t], [2, 3], name="logits"),
                                    labels=labels(c, t, [2, 3]))),
              golden=(t == "float"))
    g.add(op, "broadcast_labels",
          lambda c: list(f(features=c.input(tf.float32, [2, 3], name="logits"),
                           labels=labels(c, "float", [1, 3]))))
    g.add(op, "mismatch",
          lambda c: list(f(features=c.input(tf.float32, [2, 3], name="logits"),
                           labels=labels(c, "float", [2, 4]))))
    g.add(op, "rank1",
          lambda c: list(f(features=c.input(tf.float32, [3], name="logits"),
                           labels=labels(c, "float", [3]))))
    g.add(op, "empty",
          lambda c: list(f(features=c.input(tf.float32, [0, 3], name="logits"),
                           labels=labels(c, "float", [0, 3]))))
    g.add(op, "large_logits",
          lambda c: list(f(features=c.feed(np.array([[1000, 0, -1000]], np.float32),
                                           name="logits"),
                           labels=labels(c, "float", [1, 3]))))

    def grad(c, t):
        x = c.input(DTYPES[t], [2, 3], name="logits", static=True)
        y = labels(c, t, [2, 3])
        y.set_shape([2, 3])
        return grads(c, [f(features=x, labels=y)[0]], [x, y])
    g.add(op, "grad_float", lambda c: grad(c, "float"), golden=True)
    g.add(op, "grad_double", lambda c: grad(c, "double"))


def sparse_xent(g):
    op = "SparseSoftmaxCrossEntropyWithLogits"
    f = raw.SparseSoftmaxCrossEntropyWithLogits
    for t in g.types(op):
        for tl in g.types(op, "Tlabels"):
            g.add(op, "dtype_%s_%s" % (t, tl),
                  lambda c, t=t, tl=tl: list(f(
                      features=c.input(DTYPES[t], [3, 4], name="logits"),
                      labels=c.input(DTYPES[tl], [3], "small", name="labels"))),
                  golden=(t == "float" and tl == "int32"))

    def case(c, labels, shape=(3, 4)):
        return list(f(features=c.input(tf.float32, list(shape), name="logits"),
                      labels=c.feed(np.array(labels, np.int32), name="labels")))
    g.add(op, "label_too_large", lambda c: case(c, [0, 4, 1]), golden=True)
    g.add(op, "label_negative", lambda c: case(c, [0, -1, 1]))
    g.add(op, "labels_rank2", lambda c: case(c, [[0], [1], [2]]))
    g.add(op, "batch_mismatch", lambda c: case(c, [0, 1]))
    g.add(op, "empty_batch", lambda c: case(c, np.zeros([0], np.int32), (0, 4)))
    g.add(op, "zero_classes", lambda c: case(c, [0, 0, 0], (3, 0)))

    def grad(c, t):
        x = c.input(DTYPES[t], [3, 4], name="logits", static=True)
        y = c.input(tf.int32, [3], "small", name="labels", static=True)
        return grads(c, [f(features=x, labels=y)[0]], [x])
    g.add(op, "grad_float", lambda c: grad(c, "float"), golden=True)
    g.add(op, "grad_double", lambda c: grad(c, "double"))
