"""Op cases for the random ops: the seeded ones (RandomUniform,
RandomStandardNormal, TruncatedNormal, RandomUniformInt, Multinomial,
RandomShuffle, RandomGamma, RandomPoissonV2), over several
steps, and the stateless ones (Stateless*, seed or key/counter/alg inputs).

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

    multinomial_ops(g)
    truncated_normal_ops(g)
    stateless_truncated_normal_ops(g)
    shuffle_ops(g)
    stateless_shuffle_ops(g)
    gamma_ops(g)
    poisson_ops(g)
    stateless_ops(g)
    stateless_v2_ops(g)
    stateful_ops(g)


def _shape(c, shape, t=np.int32):
    return c.feed(np.array(shape, t), name="shape")


def multinomial_ops(g):
    def logits(c, t, rows=3, classes=5):
        v = c.rand(tf.float32, (rows, classes), "wide")
        return c.feed(v.astype(np_type(DTYPES[t])), name="logits")

    def ns(c, n):
        return c.feed(np.array(n, np.int32), name="num_samples")

    op = "Multinomial"
    f = raw.Multinomial
    for t in g.types(op, "T"):
        for out in ("int32", "int64"):
            g.add(op, "dtype_%s_%s" % (t, out),
                  lambda c, t=t, out=out: f(logits=logits(c, t), num_samples=ns(c, 7),
                                            seed=7, seed2=11, output_dtype=DTYPES[out]),
                  golden=(t == "float" and out == "int64"))
    g.add(op, "many_samples_double",
          lambda c: f(logits=logits(c, "double", 2, 40), num_samples=ns(c, 33), seed=3,
                      seed2=4))
    g.add(op, "non_finite_logits",
          lambda c: f(logits=c.feed(np.array([[-np.inf, 0., np.inf, 1., np.nan],
                                              [-np.inf] * 5, [2., -np.inf, 2., 0., 0.]],
                                             np.float32)),
                      num_samples=ns(c, 9), seed=5, seed2=6),
          note="infinite and NaN logits are never drawn; a row of none yields classes")
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[f(logits=logits(c, "float"), num_samples=ns(c, 5),
                                    seed=1, seed2=2)], steps=3))
    g.add(op, "seed_only", lambda c: f(logits=logits(c, "float"), num_samples=ns(c, 6),
                                        seed=5, seed2=0))
    g.add(op, "zero_samples", lambda c: f(logits=logits(c, "float"), num_samples=ns(c, 0),
                                           seed=5, seed2=1))
    g.add(op, "empty_batch", lambda c: f(logits=logits(c, "float", 0, 4),
                                          num_samples=ns(c, 3), seed=5, seed2=1))
    g.add(op, "negative_samples", lambda c: f(logits=logits(c, "float"),
                                               num_samples=ns(c, -1), seed=5, seed2=1),
          golden=True)
    g.add(op, "no_classes", lambda c: f(logits=logits(c, "float", 2, 0),
                                         num_samples=ns(c, 3), seed=5, seed2=1))
    g.add(op, "logits_not_matrix",
          lambda c: f(logits=c.feed(np.zeros([4], np.float32)), num_samples=ns(c, 3),
                      seed=5, seed2=1))
    g.add(op, "samples_not_scalar",
          lambda c: f(logits=logits(c, "float"),
                      num_samples=c.feed(np.array([3], np.int32)), seed=5, seed2=1))

    def graph_seed(c):
        v1.set_random_seed(99)
        x = tf.constant([[0., 1., 2.], [1., 1., 1.]])
        return [v1.multinomial(x, 4), v1.multinomial(x, 4)]
    g.add(op, "graph_seed", graph_seed, note="seeds derived from the graph seed")

    op = "StatelessMultinomial"
    f2 = raw.StatelessMultinomial
    for t in g.types(op, "T"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f2(logits=logits(c, t), num_samples=ns(c, 7),
                                seed=c.feed(np.array([1, 2], np.int64), name="seed")),
              golden=(t == "float"))
    g.add(op, "int32_seed_int32_out",
          lambda c: f2(logits=logits(c, "float"), num_samples=ns(c, 5),
                       seed=c.feed(np.array([-3, 2**30], np.int32)),
                       output_dtype=tf.int32))
    g.add(op, "bad_seed",
          lambda c: f2(logits=logits(c, "float"), num_samples=ns(c, 5),
                       seed=c.feed(np.array([1, 2, 3], np.int64))))


def truncated_normal_ops(g):
    op = "ParameterizedTruncatedNormal"
    f = raw.ParameterizedTruncatedNormal

    def ptn(c, t, shape, means, stdevs, minvals, maxvals, seeds=(7, 11)):
        d = np_type(DTYPES[t])
        return f(shape=_shape(c, shape), means=c.feed(np.array(means, d), name="means"),
                 stdevs=c.feed(np.array(stdevs, d), name="stdevs"),
                 minvals=c.feed(np.array(minvals, d), name="minvals"),
                 maxvals=c.feed(np.array(maxvals, d), name="maxvals"),
                 seed=seeds[0], seed2=seeds[1])

    inf = np.inf
    # Batches chosen to take each sampler: normals (wide bounds), uniform
    # proposals (a narrow interval), exponential proposals (a far tail), and
    # one-sided and flipped bounds.
    params = dict(means=[0., 1., 0., 2., 0., -1.],
                  stdevs=[1., 0.5, 1., 2., 1., 3.],
                  minvals=[-2., 0.9, 2.5, -inf, -1., -10.],
                  maxvals=[2., 1.2, 4., 1., inf, -9.])
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t, lambda c, t=t: ptn(c, t, [6, 5], **params),
              golden=(t == "float"))
    g.add(op, "shared_params", lambda c: ptn(c, "double", [3, 70], 0.5, 2., -1., 3.),
          note="shared parameters: batches of 100 values")
    g.add(op, "far_tail", lambda c: ptn(c, "float", [2, 9], [0., 0.], [1., 1.],
                                        [5., -inf], [inf, -6.]))
    g.add(op, "bad_stdev", lambda c: ptn(c, "float", [2, 3], 0., [1., -1.], -1., 1.),
          golden=True)
    g.add(op, "bad_bounds", lambda c: ptn(c, "float", [2, 3], 0., 1., [1., 0.], [0., 1.]))
    g.add(op, "param_length", lambda c: ptn(c, "float", [2, 3], [0., 1., 2.], 1., -1., 1.))
    g.add(op, "param_rank", lambda c: ptn(c, "float", [2, 3], [[0.]], 1., -1., 1.))
    g.add(op, "empty", lambda c: ptn(c, "float", [0, 3], 0., 1., -1., 1.))
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[ptn(c, "float", [2, 3], [0., 1.], 1., -1., 2., (1, 2))],
                         steps=3))


def stateless_truncated_normal_ops(g):
    op = "StatelessParameterizedTruncatedNormal"
    f = raw.StatelessParameterizedTruncatedNormal

    def sptn(c, t, shape, means, stddevs, minvals, maxvals, seed=(3, 4)):
        d = np_type(DTYPES[t])
        return f(shape=_shape(c, shape), seed=_seed(c, seed),
                 means=c.feed(np.array(means, d), name="means"),
                 stddevs=c.feed(np.array(stddevs, d), name="stddevs"),
                 minvals=c.feed(np.array(minvals, d), name="minvals"),
                 maxvals=c.feed(np.array(maxvals, d), name="maxvals"))

    inf = np.inf
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t, lambda c, t=t: sptn(
            c, t, [5, 6], [0., 1., 0., 2., 0., -1.], [1., 0.5, 1., 2., 1., 3.],
            [-2., 0.9, 2.5, -inf, -1., -10.], [2., 1.2, 4., 1., inf, -9.]),
              golden=(t == "float"))
    g.add(op, "broadcast", lambda c: sptn(c, "double", [4, 2, 3], [[0.], [1.]], 1.5,
                                          [-1., 0., 2.], 3.))
    g.add(op, "scalar_params", lambda c: sptn(c, "float", [130], 0., 1., -1., 1.))
    g.add(op, "bad_broadcast", lambda c: sptn(c, "float", [3], [0., 1.], 1.,
                                              [-1., 0., 1.], 2.))
    g.add(op, "shape_not_ending_with_params",
          lambda c: sptn(c, "float", [3, 2], [0., 1., 2.], 1., -1., 5.))
    g.add(op, "bad_stddev", lambda c: sptn(c, "float", [2], 0., [1., 0.], -1., 1.),
          golden=True)
    g.add(op, "empty", lambda c: sptn(c, "float", [0, 2], [0., 1.], 1., -1., 2.))


def shuffle_ops(g):
    op = "RandomShuffle"
    f = raw.RandomShuffle
    for t in g.types(op, "T"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(value=c.feed(c.rand(DTYPES[t], (9,))), seed=7, seed2=11),
              golden=(t == "int32"))
    g.add(op, "matrix", lambda c: f(value=c.feed(c.rand(tf.float32, (6, 3))), seed=1,
                                     seed2=2), golden=True)
    g.add(op, "rank3_strings",
          lambda c: f(value=c.feed(c.rand(tf.string, (5, 2, 2))), seed=3, seed2=4))
    g.add(op, "long_vector",
          lambda c: f(value=c.feed(np.arange(257, dtype=np.int64)), seed=3, seed2=4),
          note="more than one Philox block of swap draws")
    for name, shape in (("scalar", ()), ("one_row", (1, 4)), ("empty", (0,)),
                        ("empty_rows", (3, 0))):
        g.add(op, name, lambda c, shape=shape: f(value=c.feed(c.rand(tf.float32, shape)),
                                                 seed=3, seed2=4))
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[f(value=c.feed(np.arange(10, dtype=np.int32)), seed=1,
                                    seed2=2)], steps=3))
    g.add(op, "seed2_only", lambda c: f(value=c.feed(np.arange(8, dtype=np.int32)), seed=0,
                                         seed2=6))

    def graph_seed(c):
        v1.set_random_seed(5)
        x = tf.range(12)
        return [v1.random_shuffle(x), v1.random_shuffle(x, seed=3)]
    g.add(op, "graph_seed", graph_seed, note="graph seed, with and without an op seed")


def stateless_shuffle_ops(g):
    op = "StatelessShuffle"
    f = raw.StatelessShuffle

    def kca(c, alg=1):
        return dict(key=c.feed(np.array([99], np.uint64), name="key"),
                    counter=c.feed(np.array([5, 6], np.uint64), name="counter"),
                    alg=c.feed(np.array(alg, np.int32), name="alg"))

    for t in g.types(op, "T"):
        g.add(op, "dtype_" + t, lambda c, t=t: f(value=c.feed(c.rand(DTYPES[t], (9,))),
                                                  **kca(c)),
              golden=(t == "int32"))
    g.add(op, "matrix", lambda c: f(value=c.feed(c.rand(tf.float32, (6, 3))), **kca(c, 3)))
    g.add(op, "scalar", lambda c: f(value=c.feed(np.float32(3.)), **kca(c)))
    g.add(op, "threefry_scalar", lambda c: f(value=c.feed(np.float32(3.)), **kca(c, 2)),
          golden=True)


def gamma_ops(g):
    op = "RandomGamma"
    f = raw.RandomGamma

    def alpha(c, t, values):
        return c.feed(np.array(values, np_type(DTYPES[t])), name="alpha")

    alphas = [0.05, 0.5, 1.0, 1.5, 4.0, 30.0]
    for t in g.types(op, "T"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [5]), alpha=alpha(c, t, alphas), seed=7,
                               seed2=11),
              golden=(t == "float"))
    g.add(op, "matrix_alpha_int64_shape",
          lambda c: f(shape=_shape(c, [2, 3], np.int64),
                      alpha=alpha(c, "double", [[0.3, 2.0], [1.0, 7.5]]), seed=2, seed2=9))
    g.add(op, "scalar_alpha", lambda c: f(shape=_shape(c, [40]),
                                           alpha=alpha(c, "double", 0.8), seed=2, seed2=9))
    g.add(op, "no_samples", lambda c: f(shape=_shape(c, [0]),
                                         alpha=alpha(c, "float", [1.0, 2.0]), seed=2, seed2=9))
    g.add(op, "no_alphas", lambda c: f(shape=_shape(c, [3]),
                                        alpha=alpha(c, "float", np.zeros([0], np.float32)),
                                        seed=2, seed2=9))
    g.add(op, "zero_and_tiny_alpha",
          lambda c: f(shape=_shape(c, [4]), alpha=alpha(c, "double", [0.0, 1e-4]), seed=2,
                      seed2=9))
    g.add(op, "negative_dim", lambda c: f(shape=_shape(c, [-2]),
                                           alpha=alpha(c, "float", [1.0]), seed=2, seed2=9),
          golden=True)
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[f(shape=_shape(c, [3]), alpha=alpha(c, "float", [0.5, 2.]),
                                    seed=1, seed2=2)], steps=3))

    op = "RandomGammaGrad"
    for t in g.types(op, "T"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: raw.RandomGammaGrad(
                  alpha=c.feed(np.array([[0.3], [1.0], [4.5]], np_type(DTYPES[t]))),
                  sample=c.feed(np.array([0.01, 0.7, 2.0, 9.0], np_type(DTYPES[t])))),
              golden=(t == "float"))
    g.add(op, "edge_values",
          lambda c: raw.RandomGammaGrad(
              alpha=c.feed(np.array([0., -1., 2., np.inf, np.nan, 1.], np.float64)),
              sample=c.feed(np.array([1., 1., 0., 1., 1., np.inf], np.float64))))

    def gamma_gradient(c):
        a = c.feed(np.array([0.4, 1.0, 3.0], np.float32), name="alpha")
        y = v1.random_gamma([4], a, seed=3)
        return [y] + v1.gradients(y, [a])
    g.add("RandomGamma", "gradient", gamma_gradient,
          note="d sample / d alpha through RandomGammaGrad")

    def graph_seed(c):
        # tf.random.gamma's graph also broadcasts alpha (BroadcastArgs); the
        # seeds are derived as it derives them.
        v1.set_random_seed(7)
        return [raw.RandomGamma(shape=tf.constant([3]), alpha=tf.constant([0.5, 3.0]),
                                seed=s, seed2=s2)
                for s, s2 in (v1.get_seed(None), v1.get_seed(4))]
    g.add("RandomGamma", "graph_seed", graph_seed,
          note="graph seed, with and without an op seed")


def poisson_ops(g):
    rates = [0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0, -2.0]

    op = "RandomPoissonV2"
    f = raw.RandomPoissonV2
    for r in g.types(op, "R"):
        for t in g.types(op, "dtype"):
            vals = [x for x in rates if x == int(x) or not DTYPES[r].is_integer]
            g.add(op, "%s_to_%s" % (r, t),
                  lambda c, r=r, t=t, vals=vals: f(
                      shape=_shape(c, [3]),
                      rate=c.feed(np.array(vals, np_type(DTYPES[r])), name="rate"),
                      seed=7, seed2=11, dtype=DTYPES[t]),
                  golden=(r == "double" and t == "int64"))
    g.add(op, "infinite_rate",
          lambda c: [f(shape=_shape(c, [2]), rate=c.feed(np.array([np.inf, 4.], np.float32)),
                       seed=1, seed2=2, dtype=d) for d in (tf.float32, tf.int32)])
    g.add(op, "huge_rate_half",
          lambda c: f(shape=_shape(c, [4]), rate=c.feed(np.array([6e4, 65000.], np.float32)),
                      seed=1, seed2=2, dtype=tf.float16),
          note="candidates above half's largest value are redrawn")
    g.add(op, "many_samples",
          lambda c: f(shape=_shape(c, [50, 2]), rate=c.feed(np.array([2.5, 40.], np.float64)),
                      seed=1, seed2=2))
    g.add(op, "empty", lambda c: f(shape=_shape(c, [0, 2]),
                                    rate=c.feed(np.array([2.5], np.float64)), seed=1, seed2=2))
    g.add(op, "negative_dim",
          lambda c: f(shape=_shape(c, [-1]), rate=c.feed(np.array([2.5], np.float64)),
                      seed=1, seed2=2), golden=True)
    g.add(op, "steps_advance",
          lambda c: Spec(fetches=[f(shape=_shape(c, [3]),
                                    rate=c.feed(np.array([2.5, 12.], np.float32)),
                                    seed=1, seed2=2)], steps=3))

    def graph_seed(c):
        v1.set_random_seed(11)
        return [v1.random_poisson([1.5, 30.], [3]), v1.random_poisson([1.5, 30.], [3], seed=2)]
    g.add(op, "graph_seed", graph_seed, note="graph seed, with and without an op seed")


def _seed(c, values=(1, 2), t=np.int64):
    return c.feed(np.array(values, t), name="seed")


def stateless_ops(g):
    float_ops = ("StatelessRandomUniform", "StatelessRandomNormal",
                 "StatelessTruncatedNormal")
    for op in float_ops:
        f = getattr(raw, op)
        for t in g.types(op, "dtype"):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, f=f: f(shape=_shape(c, [3, 5]), seed=_seed(c, (7, 11)),
                                        dtype=DTYPES[t]),
                  golden=(t == "float"))
        for name, seed, st in (("int32_seed", (-5, 2**31 - 1), np.int32),
                               ("big_int64_seed", (-2**63, 2**62 + 12345), np.int64),
                               ("zero_seed", (0, 0), np.int64)):
            g.add(op, name, lambda c, f=f, seed=seed, st=st: f(
                shape=_shape(c, [6]), seed=_seed(c, seed, st), dtype=tf.float32))
        g.add(op, "odd_count_double",
              lambda c, f=f: f(shape=_shape(c, [1001], np.int64), seed=_seed(c, (3, 4)),
                               dtype=tf.float64),
              note="many groups; a value depends only on its index")
        g.add(op, "scalar", lambda c, f=f: f(shape=_shape(c, np.zeros([0], np.int32)),
                                               seed=_seed(c), dtype=tf.float32))
        g.add(op, "empty", lambda c, f=f: f(shape=_shape(c, [0, 3]), seed=_seed(c),
                                              dtype=tf.float32))
        g.add(op, "bad_seed", lambda c, f=f: f(shape=_shape(c, [2]),
                                                 seed=_seed(c, (1, 2, 3)), dtype=tf.float32),
              golden=True)
        g.add(op, "negative_dim", lambda c, f=f: f(shape=_shape(c, [2, -1]), seed=_seed(c),
                                                     dtype=tf.float32))

    op = "StatelessRandomUniformInt"
    f = raw.StatelessRandomUniformInt

    def bounds(c, t, lo, hi):
        return dict(minval=c.feed(np.array(lo, np_type(DTYPES[t])), name="minval"),
                    maxval=c.feed(np.array(hi, np_type(DTYPES[t])), name="maxval"))

    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [3, 4]), seed=_seed(c, (4, 5)),
                               **bounds(c, t, -5, 17)),
              golden=(t == "int32"))
    g.add(op, "wide_range_int64",
          lambda c: f(shape=_shape(c, [7]), seed=_seed(c), **bounds(c, "int64", -2**62, 2**62)))
    g.add(op, "empty_range", lambda c: f(shape=_shape(c, [2]), seed=_seed(c),
                                          **bounds(c, "int32", 4, 4)), golden=True)
    g.add(op, "empty_range_no_output",
          lambda c: f(shape=_shape(c, [0]), seed=_seed(c), **bounds(c, "int32", 4, 4)))
    g.add(op, "minval_not_scalar",
          lambda c: f(shape=_shape(c, [2]), seed=_seed(c), **bounds(c, "int32", [0], 5)))

    op = "StatelessRandomUniformFullInt"
    f = raw.StatelessRandomUniformFullInt
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [5]), seed=_seed(c, (9, 8)), dtype=DTYPES[t]),
              golden=(t == "uint64"))
    g.add(op, "int32_seed", lambda c: f(shape=_shape(c, [6]),
                                         seed=_seed(c, (1, -1), np.int32), dtype=tf.int64))

    op = "StatelessRandomGammaV2"
    f = raw.StatelessRandomGammaV2
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [4, 5]), seed=_seed(c, (3, 4)),
                               alpha=c.feed(np.array([0.05, 0.5, 1.0, 2.5, 30.],
                                                     np_type(DTYPES[t])), name="alpha")),
              golden=(t == "float"))
    g.add(op, "matrix_alpha", lambda c: f(
        shape=_shape(c, [3, 2, 2], np.int64), seed=_seed(c, (-1, 9), np.int32),
        alpha=c.feed(np.array([[0.3, 1.0], [2.0, 8.0]], np.float64))))
    g.add(op, "shape_not_ending_with_alpha", lambda c: f(
        shape=_shape(c, [3, 2]), seed=_seed(c), alpha=c.feed(np.array([1., 2., 3.],
                                                                        np.float32))),
          golden=True)
    g.add(op, "empty", lambda c: f(shape=_shape(c, [0, 3]), seed=_seed(c),
                                    alpha=c.feed(np.array([1., 2., 3.], np.float32))))

    op = "StatelessRandomPoisson"
    f = raw.StatelessRandomPoisson
    for r in g.types(op, "Rtype"):
        for t in g.types(op, "dtype"):
            lam = [0.0, 0.5, 3.0, 12.0, 400.0] if not DTYPES[r].is_integer else [0, 1, 3, 12, 400]
            g.add(op, "%s_to_%s" % (r, t),
                  lambda c, r=r, t=t, lam=lam: f(
                      shape=_shape(c, [3, 5]), seed=_seed(c, (5, 6)),
                      lam=c.feed(np.array(lam, np_type(DTYPES[r])), name="lam"),
                      dtype=DTYPES[t]),
                  golden=(r == "float" and t == "int32"))
    g.add(op, "shape_not_ending_with_lam", lambda c: f(
        shape=_shape(c, [2]), seed=_seed(c), lam=c.feed(np.array([1., 2., 3.], np.float32)),
        dtype=tf.float32))

    op = "StatelessRandomBinomial"
    f = raw.StatelessRandomBinomial
    counts = [0., 5., 100., 50., 1000., 30., 7.]
    probs = [0.3, 0.3, 0.2, 0.9, 0.5, 1.0, 0.97]
    for t in g.types(op, "T"):
        for out in g.types(op, "dtype"):
            g.add(op, "%s_to_%s" % (t, out),
                  lambda c, t=t, out=out: f(
                      shape=_shape(c, [3, 7]), seed=_seed(c, (1, 2)),
                      counts=c.feed(np.array(counts, np_type(DTYPES[t])), name="counts"),
                      probs=c.feed(np.array(probs, np_type(DTYPES[t])), name="probs"),
                      dtype=DTYPES[out]),
                  golden=(t == "double" and out == "int64"))
    g.add(op, "broadcast", lambda c: f(
        shape=_shape(c, [2, 3, 4]), seed=_seed(c, (7, -7), np.int32),
        counts=c.feed(np.array([[10.], [200.], [40.]])),
        probs=c.feed(np.array([0.1, 0.5, 0.75, 0.02])), dtype=tf.float32))
    g.add(op, "negative_and_nan", lambda c: f(
        shape=_shape(c, [4]), seed=_seed(c),
        counts=c.feed(np.array([-3., 10., 10., 0.])),
        probs=c.feed(np.array([0.5, -0.1, np.nan, 0.5])), dtype=tf.float64))
    g.add(op, "bad_broadcast", lambda c: f(
        shape=_shape(c, [3]), seed=_seed(c), counts=c.feed(np.array([1., 2.])),
        probs=c.feed(np.array([0.1, 0.2, 0.3])), dtype=tf.int64))
    g.add(op, "shape_not_ending_with_params", lambda c: f(
        shape=_shape(c, [3, 2]), seed=_seed(c), counts=c.feed(np.array([1., 2., 3.])),
        probs=c.feed(np.array([0.1, 0.2, 0.3])), dtype=tf.int64))
    g.add(op, "empty", lambda c: f(
        shape=_shape(c, [0, 3]), seed=_seed(c), counts=c.feed(np.array([1., 2., 3.])),
        probs=c.feed(np.array([0.1, 0.2, 0.3])), dtype=tf.int64))

    for op in ("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"):
        f = getattr(raw, op)
        for st in (np.int32, np.int64):
            name = "seed_" + np.dtype(st).name
            g.add(op, name, lambda c, f=f, st=st: list(f(seed=_seed(c, (-7, 123456), st))),
                  golden=(st == np.int64))
        g.add(op, "bad_seed", lambda c, f=f: list(f(seed=_seed(c, (1,)))))
    g.add("StatelessRandomGetAlg", "cpu", lambda c: raw.StatelessRandomGetAlg(),
          golden=True)


def stateless_v2_ops(g):
    def kca(c, key=12345, counter=(7, 9), alg=1):
        return dict(key=c.feed(np.array([key] if np.ndim(key) == 0 else key, np.uint64),
                               name="key"),
                    counter=c.feed(np.array(counter, np.uint64), name="counter"),
                    alg=c.feed(np.array(alg, np.int32), name="alg"))

    for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2",
               "StatelessTruncatedNormalV2"):
        f = getattr(raw, op)
        for t in g.types(op, "dtype"):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, f=f: f(shape=_shape(c, [3, 5]), dtype=DTYPES[t], **kca(c)),
                  golden=(t == "float"))
        g.add(op, "auto_select", lambda c, f=f: f(shape=_shape(c, [6]), **kca(c, alg=3)))
        g.add(op, "counter_carry",
              lambda c, f=f: f(shape=_shape(c, [40]), dtype=tf.float64,
                               **kca(c, 2**64 - 1, (2**64 - 3, 2**64 - 1))),
              note="the 128-bit counter carries past its low 64 bits")
        g.add(op, "long_counter", lambda c, f=f: f(shape=_shape(c, [4]),
                                                     **kca(c, counter=(1, 2, 3))))
        g.add(op, "threefry", lambda c, f=f: f(shape=_shape(c, [4]), **kca(c, alg=2)),
              golden=True)
        g.add(op, "bad_alg", lambda c, f=f: f(shape=_shape(c, [4]), **kca(c, alg=7)))
        g.add(op, "bad_key", lambda c, f=f: f(shape=_shape(c, [4]), **kca(c, key=[1, 2])))
        g.add(op, "short_counter", lambda c, f=f: f(shape=_shape(c, [4]),
                                                      **kca(c, counter=(1,))))
        g.add(op, "empty", lambda c, f=f: f(shape=_shape(c, [0]), **kca(c)))
        g.add(op, "threefry_empty", lambda c, f=f: f(shape=_shape(c, [0]), **kca(c, alg=2)))

    op = "StatelessRandomGammaV3"
    f = raw.StatelessRandomGammaV3
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [3, 4]),
                               alpha=c.feed(np.array([0.2, 1.0, 3.0, 11.], np_type(DTYPES[t])),
                                            name="alpha"), **kca(c)),
              golden=(t == "double"))
    g.add(op, "threefry",
          lambda c: f(shape=_shape(c, [2]), alpha=c.feed(np.array([1.], np.float32)),
                      **kca(c, alg=2)))
    g.add(op, "threefry_empty",
          lambda c: f(shape=_shape(c, [0, 1]), alpha=c.feed(np.array([1.], np.float32)),
                      **kca(c, alg=2)),
          note="an unsupported algorithm is an error only when values are drawn")

    op = "StatelessRandomUniformIntV2"
    f = raw.StatelessRandomUniformIntV2
    for t in g.types(op, "dtype"):
        lo = 0 if DTYPES[t].is_unsigned else -5
        g.add(op, "dtype_" + t,
              lambda c, t=t, lo=lo: f(
                  shape=_shape(c, [3, 4]),
                  minval=c.feed(np.array(lo, np_type(DTYPES[t])), name="minval"),
                  maxval=c.feed(np.array(1000, np_type(DTYPES[t])), name="maxval"),
                  **kca(c)),
              golden=(t == "int32"))
    g.add(op, "empty_range",
          lambda c: f(shape=_shape(c, [3]), minval=c.feed(np.array(5, np.int64)),
                      maxval=c.feed(np.array(2, np.int64)), **kca(c)))

    op = "StatelessRandomUniformFullIntV2"
    f = raw.StatelessRandomUniformFullIntV2
    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(shape=_shape(c, [5]), dtype=DTYPES[t], **kca(c)),
              golden=(t == "int64"))


def stateful_ops(g):
    def state(c, value=(5, -7, 1234567890123), t=np.int64, shape=(3,)):
        h = raw.VarHandleOp(dtype=tf.as_dtype(t), shape=list(shape), shared_name="rng",
                            name="rng")
        init = raw.AssignVariableOp(resource=h, value=tf.constant(np.array(value, t)))
        return h, init

    def alg(c, a=1):
        return c.feed(np.array(a, np.int64), name="alg")

    for op in ("StatefulUniform", "StatefulStandardNormalV2", "StatefulTruncatedNormal"):
        f = getattr(raw, op)
        for t in g.types(op, "dtype", among=["half", "bfloat16", "float", "double"]):
            def build(c, t=t, f=f):
                h, init = state(c)
                return Spec(fetches=[f(resource=h, algorithm=alg(c), shape=_shape(c, [3, 5]),
                                       dtype=DTYPES[t])], init=[init], steps=2)
            g.add(op, "dtype_" + t, build, golden=(t == "float"),
                  note="two steps: the state advances")

        def carry(c, f=f):
            h, init = state(c, (-2, 9, 77))
            return Spec(fetches=[f(resource=h, algorithm=alg(c, 3), shape=_shape(c, [9]),
                                   dtype=tf.float64)], init=[init], steps=2)
        g.add(op, "counter_carry_auto_select", carry,
              note="the low 64 counter bits wrap into the high ones")

        def bad_alg(c, f=f):
            h, init = state(c)
            return Spec(fetches=[f(resource=h, algorithm=alg(c, 2), shape=_shape(c, [2]),
                                   dtype=tf.float32)], init=[init])
        g.add(op, "threefry", bad_alg)

        def short_state(c, f=f):
            h, init = state(c, (1, 2), shape=(2,))
            return Spec(fetches=[f(resource=h, algorithm=alg(c), shape=_shape(c, [2]),
                                   dtype=tf.float32)], init=[init])
        g.add(op, "short_state", short_state, golden=(op == "StatefulUniform"))

    int_types = ["int32", "int64", "uint32", "uint64", "half"]
    op = "StatefulUniformInt"
    for t in g.types(op, "dtype", among=int_types):
        def build_int(c, t=t):
            h, init = state(c)
            d = np_type(DTYPES[t])
            return Spec(fetches=[raw.StatefulUniformInt(
                resource=h, algorithm=alg(c), shape=_shape(c, [7]),
                minval=c.feed(np.array(3, d), name="minval"),
                maxval=c.feed(np.array(250, d), name="maxval"))], init=[init], steps=2)
        g.add(op, "dtype_" + t, build_int, golden=(t == "int64"))

    def empty_range(c, n):
        h, init = state(c)
        return Spec(fetches=[raw.StatefulUniformInt(
            resource=h, algorithm=alg(c), shape=_shape(c, [n]),
            minval=c.feed(np.array(4, np.int64)), maxval=c.feed(np.array(4, np.int64))),
            raw.ReadVariableOp(resource=h, dtype=tf.int64)], init=[init])
    g.add(op, "empty_range", lambda c: empty_range(c, 3))
    g.add(op, "empty_range_no_output", lambda c: empty_range(c, 0))

    op = "StatefulUniformFullInt"
    for t in g.types(op, "dtype", among=int_types):
        def build_full(c, t=t):
            h, init = state(c)
            return Spec(fetches=[raw.StatefulUniformFullInt(
                resource=h, algorithm=alg(c), shape=_shape(c, [5]), dtype=DTYPES[t])],
                init=[init], steps=2)
        g.add(op, "dtype_" + t, build_full, golden=(t == "uint64"))

    def skip(c):
        h, init = state(c)
        s = raw.RngSkip(resource=h, algorithm=alg(c), delta=c.feed(np.array(3, np.int64)))
        with tf.control_dependencies([s]):
            return Spec(fetches=[raw.ReadVariableOp(resource=h, dtype=tf.int64)],
                        init=[init], steps=2)
    g.add("RngSkip", "delta_3", skip, golden=True)

    def read_and_skip(c):
        h, init = state(c, (-1, 4, 42))
        return Spec(fetches=[raw.RngReadAndSkip(resource=h, alg=c.feed(np.array(1, np.int32)),
                                                delta=c.feed(np.array(10, np.uint64)))],
                    init=[init], steps=3)
    g.add("RngReadAndSkip", "delta_10", read_and_skip, golden=True)
