"""Op cases for Assert (raw and as tf.debugging's asserts build it in graph
mode), DeepCopy and AccumulateNV2.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, raw, v1
import numpy as np
import tensorflow as tf


def debug(g):
    op = "Assert"

    def assert_case(c, holds, summarize=3, cond_shape=()):
        cond = c.feed(np.full(cond_shape, holds, np.bool_), name="cond")
        x = c.input(tf.float32, [5], name="x")
        a = raw.Assert(condition=cond, data=[tf.constant("x was"), x], summarize=summarize)
        with tf.control_dependencies([a]):
            y = tf.identity(x)
        return [y]
    g.add(op, "holds", lambda c: assert_case(c, True), golden=True)
    g.add(op, "fails", lambda c: assert_case(c, False), golden=True)
    g.add(op, "summarize_all", lambda c: assert_case(c, False, summarize=-1))
    g.add(op, "condition_not_scalar", lambda c: assert_case(c, True, cond_shape=[2]))

    def positive(c):
        x = c.input(tf.float32, [3], name="x")
        with tf.control_dependencies([v1.assert_positive(x, message="x must be positive")]):
            y = tf.identity(x)
        return [y]
    g.add(op, "assert_positive", positive,
          note="tf.compat.v1.assert_positive: a cond around Assert")

    op = "DeepCopy"
    for t in g.types(op):
        g.add(op, "dtype_" + t,
              lambda c, t=t: [raw.DeepCopy(x=c.input(DTYPES[t], [2, 3], name="x"))],
              golden=(t == "float"))
    g.add(op, "empty", lambda c: [raw.DeepCopy(x=c.input(tf.float32, [0, 3]))])
    g.add(op, "scalar", lambda c: Spec(fetches=[raw.DeepCopy(x=c.input(tf.int64, []))]))


def accumulate(g):
    """AccumulateNV2 (TensorFlow rewrites it into a temporary variable and
    AssignAdds before running; the sum is the same)."""
    op = "AccumulateNV2"
    for t in g.types(op):
        def acc(c, t=t):
            xs = [c.input(DTYPES[t], [2, 3], name="x%d" % i) for i in range(3)]
            return [raw.AccumulateNV2(inputs=xs, shape=[2, 3])]
        g.add(op, "dtype_" + t, acc, golden=(t == "float"))
    g.add(op, "one_input",
          lambda c: [raw.AccumulateNV2(inputs=[c.input(tf.float32, [2])], shape=[2])],
          golden=True)
