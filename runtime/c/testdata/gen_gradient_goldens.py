"""Writes gradient_goldens.txt: graphs, inputs and TensorFlow's gradients.

Each case is a small float64 graph built with tf.compat.v1, its GraphDef
(binary, hex), the feeds, the tensors y with the initial gradients grad_y,
and the tensors x with tf.gradients(y, x, grad_ys) as computed by the
installed TensorFlow. c_api_gradients_test imports each GraphDef, adds
gradients with TF_AddGradients and compares (and checks them against
finite differences).

Usage: python gen_gradient_goldens.py OUT_FILE
"""

import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

RNG = np.random.RandomState(20261127)


def values(shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(np.float64)


def away_from_kinks(shape, low=-2.0, high=2.0):
    """Values at least 0.1 from 0 (for Abs, Relu, ... at their kinks)."""
    v = values(shape, low, high)
    return np.where(np.abs(v) < 0.1, v + np.sign(v + 1e-9) * 0.2, v)


CASES = []


def case(name):
    def register(fn):
        CASES.append((name, fn))
        return fn

    return register


def ph(name, value, dtype=tf.float64):
    return tf1.placeholder(dtype, shape=value.shape, name=name), value


def unary(op_name, fn, low=-2.0, high=2.0):
    @case(op_name.lower())
    def build():
        x, xv = ph("x", away_from_kinks((2, 3), low, high))
        return [fn(x)], [(x, xv)], [x]


unary("Neg", tf.negative)
unary("Abs", tf.abs)
unary("Square", tf.square)
unary("Sqrt", tf.sqrt, 0.5, 3.0)
unary("Rsqrt", tf.math.rsqrt, 0.5, 3.0)
unary("Exp", tf.exp)
unary("Log", tf.math.log, 0.5, 3.0)
unary("Log1p", tf.math.log1p, 0.0, 3.0)
unary("Tanh", tf.tanh)
unary("Sigmoid", tf.sigmoid)
unary("Sin", tf.sin)
unary("Cos", tf.cos)
unary("Reciprocal", tf.math.reciprocal, 0.5, 3.0)
unary("Relu", tf.nn.relu)
unary("Relu6", tf.nn.relu6, -2.0, 8.0)
unary("Elu", tf.nn.elu)
unary("Softplus", tf.nn.softplus)
unary("LeakyRelu", lambda x: tf.nn.leaky_relu(x, alpha=0.3))
unary("Identity", tf.identity)
unary("Softmax", tf.nn.softmax)
unary("LogSoftmax", tf.nn.log_softmax)
unary("L2Loss", tf.nn.l2_loss)


def binary(name, fn, ys_shape=(3,), low=-2.0, high=2.0):
    @case(name)
    def build():
        a, av = ph("a", away_from_kinks((2, 3), low, high))
        b, bv = ph("b", away_from_kinks(ys_shape, low, high))
        return [fn(a, b)], [(a, av), (b, bv)], [a, b]


binary("add_broadcast", tf.add)
binary("sub_broadcast_column", tf.subtract, (2, 1))
binary("mul_broadcast", tf.multiply)
binary("realdiv_broadcast", tf.math.truediv, (3,), 0.5, 2.0)
binary("maximum", tf.maximum, (2, 3))
binary("minimum_broadcast", tf.minimum)
binary("squared_difference", tf.math.squared_difference, (2, 1))
binary("pow", tf.pow, (3,), 0.5, 2.0)


def matmul_case(ta, tb):
    @case("matmul_%d%d" % (ta, tb))
    def build():
        a, av = ph("a", values((3, 2) if ta else (2, 3)))
        b, bv = ph("b", values((4, 3) if tb else (3, 4)))
        return [tf.matmul(a, b, transpose_a=ta, transpose_b=tb)], \
            [(a, av), (b, bv)], [a, b]


for _ta in (False, True):
    for _tb in (False, True):
        matmul_case(_ta, _tb)


@case("batch_matmul_broadcast")
def _():
    a, av = ph("a", values((2, 2, 3)))
    b, bv = ph("b", values((3, 4)))
    return [tf.linalg.matmul(a, b, adjoint_b=False)], [(a, av), (b, bv)], \
        [a, b]


def reduction(name, fn):
    @case(name)
    def build():
        x, xv = ph("x", values((2, 3, 4)))
        return [fn(x)], [(x, xv)], [x]


reduction("sum_axis1", lambda x: tf.reduce_sum(x, axis=1))
reduction("sum_keepdims_neg_axis",
          lambda x: tf.reduce_sum(x, axis=[-1, 0], keepdims=True))
reduction("mean_axis2", lambda x: tf.reduce_mean(x, axis=2))
reduction("mean_all", lambda x: tf.reduce_mean(x))
reduction("max_axis1", lambda x: tf.reduce_max(x, axis=1))
reduction("min_axis0_keepdims",
          lambda x: tf.reduce_min(x, axis=0, keepdims=True))
reduction("reshape", lambda x: tf.reshape(x, [4, 6]))
reduction("transpose", lambda x: tf.transpose(x, [2, 0, 1]))
reduction("expand_dims", lambda x: tf.expand_dims(x, 1))
reduction("squeeze", lambda x: tf.squeeze(tf.reshape(x, [2, 1, 12])))
reduction("slice", lambda x: tf.slice(x, [0, 1, 1], [2, 2, 2]))
reduction("tile", lambda x: tf.tile(x, [2, 1, 3]))
reduction("broadcast_to",
          lambda x: tf.broadcast_to(tf.reshape(x[:, :1, :], [2, 1, 4]),
                                    [2, 5, 4]))
reduction("gather_axis0", lambda x: tf.gather(x, [1, 0, 1]))
reduction("gather_axis1_matrix_indices",
          lambda x: tf.gather(x, [[2, 0], [2, 2]], axis=1))
reduction("cast_float32", lambda x: tf.cast(x, tf.float32))


@case("concat_and_pack")
def _():
    a, av = ph("a", values((2, 3)))
    b, bv = ph("b", values((2, 2)))
    c = tf.concat([a, b], axis=-1)
    d = tf.stack([a, a * 2.0], axis=1)
    return [c, d], [(a, av), (b, bv)], [a, b]


@case("split_and_splitv")
def _():
    x, xv = ph("x", values((2, 6)))
    a, b, c = tf.split(x, 3, axis=1)
    d, e = tf.split(x, [1, 5], axis=-1)
    return [a * 2.0 + c, e], [(x, xv)], [x]


@case("concat_v1_and_pad")
def _():
    a, av = ph("a", values((2, 3)))
    b, bv = ph("b", values((1, 3)))
    c = tf.raw_ops.Concat(concat_dim=0, values=[a, b])
    return [tf.pad(c, [[1, 0], [2, 1]])], [(a, av), (b, bv)], [a, b]


@case("unpack")
def _():
    x, xv = ph("x", values((3, 2)))
    parts = tf.unstack(x, axis=1)
    return [parts[1]], [(x, xv)], [x]


@case("select")
def _():
    a, av = ph("a", values((2, 3)))
    b, bv = ph("b", values((2, 3)))
    cond = tf.constant([[True, False, True], [False, False, True]])
    return [tf1.where(cond, a, b)], [(a, av), (b, bv)], [a, b]


@case("bias_add")
def _():
    x, xv = ph("x", values((2, 3, 4)))
    b, bv = ph("b", values((4,)))
    return [tf.nn.bias_add(x, b)], [(x, xv), (b, bv)], [x, b]


@case("softmax_cross_entropy")
def _():
    logits, lv = ph("logits", values((3, 4)))
    # Rows of labels are distributions (the loss's gradient assumes so).
    raw = np.abs(values((3, 4))) + 0.1
    labels, yv = ph("labels", raw / raw.sum(axis=1, keepdims=True))
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                   logits=logits)
    return [loss], [(logits, lv), (labels, yv)], [logits, labels]


@case("sparse_softmax_cross_entropy")
def _():
    logits, lv = ph("logits", values((3, 4)))
    labels = tf.constant([1, 3, 0], dtype=tf.int64)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                          logits=logits)
    return [loss], [(logits, lv)], [logits]


def conv_case(name, strides, padding):
    @case(name)
    def build():
        x, xv = ph("x", values((1, 5, 5, 2)))
        f, fv = ph("f", values((3, 3, 2, 3)))
        y = tf.nn.conv2d(x, f, strides=strides, padding=padding)
        return [y], [(x, xv), (f, fv)], [x, f]


conv_case("conv2d_same", [1, 1, 1, 1], "SAME")
conv_case("conv2d_valid_stride2", [1, 2, 2, 1], "VALID")


@case("max_pool")
def _():
    x, xv = ph("x", values((1, 4, 4, 2)))
    return [tf.nn.max_pool2d(x, 2, 2, "VALID")], [(x, xv)], [x]


@case("avg_pool_same")
def _():
    x, xv = ph("x", values((1, 5, 5, 2)))
    return [tf.nn.avg_pool2d(x, 3, 2, "SAME")], [(x, xv)], [x]


@case("mlp_two_layers")
def _():
    x, xv = ph("x", values((4, 3)))
    w1, w1v = ph("w1", values((3, 5)))
    b1, b1v = ph("b1", values((5,)))
    w2, w2v = ph("w2", values((5, 2)))
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    logits = tf.matmul(h, w2)
    labels = tf.constant([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 0.0]],
                         dtype=tf.float64)
    loss = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return [loss], [(x, xv), (w1, w1v), (b1, b1v), (w2, w2v)], [w1, b1, w2]


@case("shared_input_and_two_ys")
def _():
    x, xv = ph("x", values((2, 2)))
    y1 = tf.tanh(x) * x
    y2 = tf.exp(tf.reduce_sum(x * x, axis=0))
    return [y1, y2], [(x, xv)], [x]


def tensor_line(tag, arr):
    arr = np.asarray(arr)
    dims = ",".join(str(d) for d in arr.shape)
    vals = " ".join(repr(float(v)) for v in arr.reshape(-1))
    return "%s %s %s" % (tag, dims if dims else "-", vals)


def main():
    out = open(sys.argv[1], "w")
    out.write("# Generated by gen_gradient_goldens.py with TensorFlow %s.\n"
              % tf.__version__)
    for name, build in CASES:
        g = tf1.Graph()
        with g.as_default():
            ys, feeds, xs = build()
            grad_ys = [values(tuple(y.shape.as_list())) for y in ys]
            grads = tf1.gradients(ys, xs, grad_ys=[tf.constant(v, y.dtype)
                                                   for v, y in zip(grad_ys,
                                                                   ys)])
            # Gathers give IndexedSlices: compare dense values.
            grads = [tf.convert_to_tensor(t) for t in grads]
            gdef = g.as_graph_def()
            # The gradient operations are not part of the golden graph.
            keep = set()
            for y in ys:
                stack = [y.op]
                while stack:
                    op = stack.pop()
                    if op.name in keep:
                        continue
                    keep.add(op.name)
                    stack.extend(t.op for t in op.inputs)
                    stack.extend(op.control_inputs)
            pruned = tf1.GraphDef()
            pruned.versions.CopyFrom(gdef.versions)
            for node in gdef.node:
                if node.name in keep:
                    pruned.node.add().CopyFrom(node)
            with tf1.Session(graph=g) as sess:
                feed_dict = {t: v for t, v in feeds}
                grad_values = sess.run(grads, feed_dict)
        out.write("case %s\n" % name)
        out.write("graph %s\n" % pruned.SerializeToString().hex())
        for t, v in feeds:
            out.write(tensor_line("feed %s" % t.name, v) + "\n")
        for y, gy in zip(ys, grad_ys):
            out.write(tensor_line("y %s" % y.name, gy) + "\n")
        for x, gv in zip(xs, grad_values):
            out.write(tensor_line("x %s" % x.name, gv) + "\n")
        out.write("end\n")
    out.close()


if __name__ == "__main__":
    main()
