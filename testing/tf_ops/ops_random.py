"""Op cases for the seeded random ops (RandomUniform, RandomStandardNormal,
TruncatedNormal, RandomUniformInt), over several steps.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, np_type, raw, v1
import numpy as np
import tensorflow as tf


def random_ops(g):
    def shape_feed(c, shape, t=np.int32):
        return c.feed(np.array(shape, t), name="shape")

    for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        f = getattr(raw, op)
        for t in g.types(op, "dtype"):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, f=f: f(shape=shape_feed(c, [3, 5]), dtype=DTYPES[t],
                                        seed=7, seed2=11),
                  golden=(t == "float"))
        g.add(op, "steps_advance",
              lambda c, f=f: Spec(fetches=[f(shape=shape_feed(c, [6]), dtype=tf.float32,
                                             seed=1, seed2=2)], steps=3))
        g.add(op, "seed_only", lambda c, f=f: f(shape=shape_feed(c, [4]), dtype=tf.float32,
                                                  seed=5, seed2=0))
        g.add(op, "seed2_only", lambda c, f=f: f(shape=shape_feed(c, [4]), dtype=tf.float32,
                                                   seed=0, seed2=5))
        g.add(op, "odd_count_double",
              lambda c, f=f: f(shape=shape_feed(c, [1001]), dtype=tf.float64, seed=3,
                               seed2=4),
              note="past the first Philox blocks, an odd count")
        g.add(op, "int64_shape",
              lambda c, f=f: f(shape=shape_feed(c, [2, 2], np.int64), dtype=tf.float32,
                               seed=1, seed2=1))
        g.add(op, "scalar", lambda c, f=f: f(shape=shape_feed(c, np.zeros([0], np.int32)),
                                               dtype=tf.float32, seed=9, seed2=9))
        g.add(op, "empty", lambda c, f=f: f(shape=shape_feed(c, [0, 3]), dtype=tf.float32,
                                              seed=9, seed2=9))
        g.add(op, "negative_dim",
              lambda c, f=f: f(shape=shape_feed(c, [2, -1]), dtype=tf.float32, seed=9,
                               seed2=9), golden=True)
        g.add(op, "two_nodes_same_seeds",
              lambda c, f=f: [f(shape=shape_feed(c, [3]), dtype=tf.float32, seed=4, seed2=4,
                                name="a"),
                              f(shape=tf.constant([3]), dtype=tf.float32, seed=4, seed2=4,
                                name="b")],
              note="each node has its own stream, started from the same seeds")

        def graph_seed(c, f=f, op=op):
            v1.set_random_seed(1234)
            fn = {"RandomUniform": v1.random_uniform,
                  "RandomStandardNormal": v1.random_normal,
                  "TruncatedNormal": v1.truncated_normal}[op]
            return [fn([2, 3]), fn([2, 3])]
        g.add(op, "graph_seed", graph_seed, note="seeds derived from the graph seed")

    op = "RandomUniformInt"
    f = raw.RandomUniformInt

    def rui(c, t, lo, hi, shape=(3, 4), seeds=(7, 11)):
        d = DTYPES[t]
        return f(shape=shape_feed(c, list(shape)),
                 minval=c.feed(np.array(lo, np_type(d)), name="minval"),
                 maxval=c.feed(np.array(hi, np_type(d)), name="maxval"),
                 seed=seeds[0], seed2=seeds[1])

    for t in g.types(op, "Tout"):
        g.add(op, "dtype_" + t, lambda c, t=t: rui(c, t, -5, 17), golden=(t == "int32"))
    g.add(op, "wide_range_int64", lambda c: rui(c, "int64", -2**62, 2**62))
    g.add(op, "full_range_int32", lambda c: rui(c, "int32", -2**31, 2**31 - 1))
    g.add(op, "one_value", lambda c: rui(c, "int32", 3, 4))
    g.add(op, "empty_range", lambda c: rui(c, "int32", 4, 4), golden=True)
    g.add(op, "minval_not_scalar",
          lambda c: f(shape=shape_feed(c, [2]), minval=c.feed(np.array([0], np.int32)),
                      maxval=c.feed(np.array(5, np.int32)), seed=1, seed2=1))
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[rui(c, "int64", 0, 1000, (5,), (2, 3))], steps=3))
