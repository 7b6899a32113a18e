"""Op cases for the trigonometric, hyperbolic and special functions
(Sin ... Atanh, Expm1, Rint, Erf, Erfc, Lgamma, Digamma, IsFinite/IsNan/
IsInf, Atan2, Igamma, Igammac, Zeta, Polygamma, Betainc), the ops that
define 0 * anything as 0 (DivNoNan, MulNoNan, Xlogy, Xdivy, Xlog1py),
TruncateMod, the bitwise ops, ClipByValue, Cumprod and the activations
Selu, Softsign and LeakyRelu with their gradient ops.

Each function adds one family's cases to a Generator (op_case_lib); the
element-wise ones reuse ops_math's unary/binary case sets.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, np_type, raw
import numpy as np
import tensorflow as tf

import ops_math

# Unary ops: input kind, differentiable.
UNARY = {
    "Sin": ("any", True), "Cos": ("any", True), "Tan": ("unit", True),
    "Asin": ("unit", True), "Acos": ("unit", True), "Atan": ("any", True),
    "Sinh": ("any", True), "Cosh": ("any", True), "Asinh": ("any", True),
    "Acosh": ("gt1", True), "Atanh": ("unit", True), "Expm1": ("any", True),
    "Rint": ("any", False), "Erf": ("any", True), "Erfc": ("any", True),
    "Lgamma": ("pos", True), "Digamma": ("pos", True),
    "IsFinite": ("any", False), "IsNan": ("any", False),
    "IsInf": ("any", False), "Selu": ("any", True),
    "Softsign": ("any", True), "LeakyRelu": ("any", True),
}

# Binary ops: y's input kind, differentiable.
BINARY = {
    "Atan2": ("any", True), "DivNoNan": ("any", True),
    "MulNoNan": ("any", True), "Xlogy": ("pos", True),
    "Xdivy": ("nonzero", True), "Xlog1py": ("pos", True),
    "TruncateMod": ("nonzero", False), "BitwiseAnd": ("any", False),
    "BitwiseOr": ("any", False), "BitwiseXor": ("any", False),
    "LeftShift": ("small", False), "RightShift": ("small", False),
}

# Gradient ops: (first, second) input names, kinds (ops_math.cwise_grad).
CWISE_GRADS = {
    "SeluGrad": ("gradients", "outputs", "any", "any"),
    "SoftsignGrad": ("gradients", "features", "any", "any"),
    "LeakyReluGrad": ("gradients", "features", "any", "any"),
}


def unary(g, op):
    ops_math.unary(g, op, spec=UNARY[op])
    if op == "LeakyRelu":
        for alpha in (0.0, 2.0, -0.5):
            g.add(op, "alpha_%g" % alpha,
                  lambda c, a=alpha: raw.LeakyRelu(
                      features=c.feed(np.array([-2, -0.0, 0, 1.5, np.nan, -np.inf],
                                               np.float32), name="x"), alpha=a))
        g.add(op, "grad_alpha",
              lambda c: (lambda x: grads(c, [raw.LeakyRelu(features=x, alpha=0.3)], [x]))(
                  c.input(tf.float32, [3, 4], name="x", static=True)))
    if op in ("Asin", "Acos", "Atanh", "Acosh", "Lgamma", "Digamma"):
        g.add(op, "domain_edges",
              lambda c: getattr(raw, op)(x=c.feed(np.array(
                  [-2, -1, -0.5, 0, 1, 2, -3, -2.5, 1e-8, 40, 1e4], np.float64), name="x")),
              note="outside the real domain: NaN or inf, never an error")
    if op in ("Sin", "Cos", "Tan", "Asinh", "Atan", "Expm1", "Erf", "Erfc"):
        g.add(op, "wide_double",
              lambda c: getattr(raw, op)(x=c.feed(np.array(
                  [-30, -5.5, -1e-10, 1e-300, 4.25, 12, 26, 1e6], np.float64), name="x")))


def binary(g, op):
    ykind, differentiable = BINARY[op]
    ops_math.binary(g, op, ykind=ykind, differentiable=differentiable)
    f = getattr(raw, op)
    if op in ("DivNoNan", "MulNoNan", "Xlogy", "Xdivy", "Xlog1py"):
        for t in ("float", "complex64"):
            x = np.array([0, 0, 0, 0, 1, -1, 2, np.nan, np.inf], np.float32)
            y = np.array([0, np.nan, np.inf, -1, 0, 0, -0.5, 0, 2], np.float32)
            g.add(op, "zeros_" + t,
                  lambda c, t=t, x=x, y=y: f(x=c.feed(x.astype(np_type(DTYPES[t])), name="x"),
                                             y=c.feed(y.astype(np_type(DTYPES[t])), name="y")),
                  golden=(t == "float"),
                  note="zero operands against NaN, inf and zero")
    if op == "Atan2":
        v = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan], np.float32)
        xs, ys = np.meshgrid(v, v)
        g.add(op, "quadrants",
              lambda c: f(y=c.feed(ys.ravel(), name="y"), x=c.feed(xs.ravel(), name="x")),
              golden=True, note="signed zeros, infinities and NaN in every pairing")
    if op in ("LeftShift", "RightShift"):
        for t in ("int8", "int32", "uint16", "int64"):
            x = np.array([1, -1, 5, 3, -128, 127, 7], np.int64)
            y = np.array([0, 3, 7, 63, 40, -3, 1], np.int64)
            dt = DTYPES[t]
            g.add(op, "edges_" + t,
                  lambda c, dt=dt, x=x, y=y: f(
                      x=c.feed(x.astype(np_type(dt)), name="x"),
                      y=c.feed(y.astype(np_type(dt)), name="y")),
                  golden=(t == "int8"),
                  note="shift amounts out of range and negative: clamped")


def bitwise_unary(g, op):
    f = getattr(raw, op)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: f(x=c.input(DTYPES[t], [2, 3], name="x")),
              golden=(t == "int32"))
    for t in ("int8", "uint64", "int64"):
        info = np.iinfo(np_type(DTYPES[t]))
        v = np.array([info.min, info.max, 0, 1, 5], np_type(DTYPES[t]))
        g.add(op, "edges_" + t, lambda c, v=v: f(x=c.feed(v, name="x")),
              golden=(t == "int8"))
    g.add(op, "scalar", lambda c: f(x=c.input(tf.int32, [], name="x")))
    g.add(op, "empty", lambda c: f(x=c.input(tf.int32, [0, 3], name="x")))


def clip_by_value(g):
    op = "ClipByValue"
    f = raw.ClipByValue

    def clip(c, t, ts, ls, hs, static=False):
        dt = DTYPES[t]
        x = c.input(dt, ts, name="t", static=static)
        lo, hi = (1, 5) if dt.is_unsigned else (-1, 2)
        lo = c.feed(np.full(ls, lo).astype(np_type(dt)), name="lo", static=static)
        hi = c.feed(np.full(hs, hi).astype(np_type(dt)), name="hi", static=static)
        return x, f(t=x, clip_value_min=lo, clip_value_max=hi)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: clip(c, t, [2, 3], [], [])[1],
              golden=(t == "float"))
    g.add(op, "tensor_bounds", lambda c: clip(c, "float", [2, 3], [2, 3], [2, 3])[1])
    g.add(op, "mixed_bounds", lambda c: clip(c, "int32", [2, 3], [], [2, 3])[1])
    g.add(op, "bad_bounds", lambda c: clip(c, "float", [2, 3], [3], [])[1], golden=True)
    g.add(op, "broadcastable_bounds", lambda c: clip(c, "float", [2, 3], [1, 3], [])[1],
          note="bounds must be scalars or t's shape: no broadcasting")
    g.add(op, "scalar", lambda c: clip(c, "float", [], [], [])[1])
    g.add(op, "empty", lambda c: clip(c, "float", [0, 3], [], [])[1])
    g.add(op, "nan_and_crossed",
          lambda c: f(t=c.feed(np.array([np.nan, 1, 5, -3, 0.5], np.float32), name="t"),
                      clip_value_min=c.feed(np.array([0, np.nan, 3, 2, 1], np.float32),
                                            name="lo"),
                      clip_value_max=c.feed(np.array([1, 0, 2, np.nan, 0], np.float32),
                                            name="hi")),
          note="NaN in t and in the bounds; min > max gives min")
    g.add(op, "complex_componentwise",
          lambda c: f(t=c.feed(np.array([1 + 5j, 3 - 1j, -2, 0.5 + 0.5j], np.complex64),
                               name="t"),
                      clip_value_min=c.feed(np.complex64(0 + 1j), name="lo"),
                      clip_value_max=c.feed(np.complex64(2 + 0j), name="hi")))
    g.add(op, "grad_float",
          lambda c: (lambda x: grads(c, [tf.clip_by_value(x, -1.0, 1.5)], [x]))(
              c.input(tf.float32, [3, 4], name="x", static=True)))


# Special functions of two arguments: (first, second) input names, kinds,
# differentiable.
SPECIAL = {
    "Igamma": ("a", "x", "pos", "pos", True),
    "Igammac": ("a", "x", "pos", "pos", True),
    "IgammaGradA": ("a", "x", "pos", "pos", False),
    "Zeta": ("x", "q", "gt1", "pos", True),
    "Polygamma": ("a", "x", "small", "pos", True),
}


def special(g, op):
    a, b, ka, kb, differentiable = SPECIAL[op]
    f = getattr(raw, op)

    def sp(c, t, sa, sb, static=False):
        x = c.input(DTYPES[t], sa, ka if op != "Polygamma" else "pos", name=a,
                    static=static)
        if op == "Polygamma":
            x = c.feed(np.floor(c.rand(tf.float64, sa, "pos")).astype(
                np_type(DTYPES[t])), name=a, static=static)
        y = c.input(DTYPES[t], sb, kb, name=b, static=static)
        return x, y, f(**{a: x, b: y})

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sp(c, t, [2, 3], [2, 3])[2],
              golden=(t == "float"))
    g.add(op, "broadcast", lambda c: sp(c, "double", [2, 1], [3])[2])
    g.add(op, "incompatible", lambda c: sp(c, "float", [2, 3], [4])[2])
    g.add(op, "empty", lambda c: sp(c, "float", [0, 3], [3])[2])
    edges = {
        "Igamma": ([0, 1, -1, 2, np.inf, 1, 1, np.nan, 0.5, 30, 1e-3],
                   [1, 0, 1, -1, 1, np.inf, 1e-9, 1, 40, 28, 5]),
        "Zeta": ([1, 2, 0.5, 3, np.inf, 2, 4, 2, 1.5, 7, 2],
                 [1, 0, 1, -1.5, 1, -2, 1e-3, np.inf, 1e4, 0.25, 1]),
        "Polygamma": ([0, 1, 2, 3, -1, 0.5, 1, 4, 1, 0, 2],
                      [1, 2, 0.5, 3, 1, 1, -1, 1e-3, -2.5, 30, 1e4]),
    }
    key = "Igamma" if op.startswith("Igamma") else op
    ea, eb = edges[key]
    g.add(op, "edges",
          lambda c: f(**{a: c.feed(np.array(ea, np.float64), name=a),
                         b: c.feed(np.array(eb, np.float64), name=b)}),
          golden=True, note="poles, zeros, infinities, NaN and large arguments")
    if differentiable:
        for t in ("float", "double"):
            g.add(op, "grad_" + t,
                  lambda c, t=t: (lambda x, y, z: grads(c, [z], [x, y]))(
                      *sp(c, t, [2, 3], [2, 3], static=True)))


def betainc(g):
    op = "Betainc"
    f = raw.Betainc

    def bi(c, t, sa, sb, sx, static=False):
        a = c.input(DTYPES[t], sa, "pos", name="a", static=static)
        b = c.input(DTYPES[t], sb, "pos", name="b", static=static)
        x = c.input(DTYPES[t], sx, "unit", name="x", static=static)
        return a, b, x, f(a=a, b=b, x=tf.abs(x))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bi(c, t, [2, 3], [2, 3], [2, 3])[3],
              golden=(t == "float"))
    g.add(op, "scalars_mixed", lambda c: bi(c, "double", [], [2, 3], [])[3])
    g.add(op, "scalar_x", lambda c: bi(c, "float", [2, 3], [2, 3], [])[3])
    g.add(op, "inconsistent_ab", lambda c: bi(c, "float", [2, 3], [3], [2, 3])[3],
          golden=True)
    g.add(op, "inconsistent_bx", lambda c: bi(c, "float", [], [2, 3], [3, 2])[3])
    g.add(op, "empty", lambda c: bi(c, "float", [0, 3], [0, 3], [])[3])
    g.add(op, "edges",
          lambda c: f(a=c.feed(np.array([1, 0, -1, 2, 0.5, 1, np.nan, 5, 1e3], np.float64),
                               name="a"),
                      b=c.feed(np.array([1, 1, 1, 0, 0.5, 2, 1, 5, 1e3], np.float64),
                               name="b"),
                      x=c.feed(np.array([0.5, 0.5, 0.5, 0.5, 0, 1, 0.5, 1.5, 0.5],
                                        np.float64), name="x")),
          note="zero and negative parameters, x at and beyond the ends")
    g.add(op, "grad_x",
          lambda c: (lambda a, b, x, z: grads(c, [z], [x]))(
              *bi(c, "float", [2, 3], [2, 3], [2, 3], static=True)))


def generate(g):
    """Every family in this module."""
    for op in UNARY:
        unary(g, op)
    for op in BINARY:
        binary(g, op)
    for op in ("Invert", "PopulationCount"):
        bitwise_unary(g, op)
    clip_by_value(g)
    ops_math.cumsum(g, "Cumprod")
    for op in CWISE_GRADS:
        ops_math.cwise_grad(g, op, spec=CWISE_GRADS[op],
                            second_order=(op != "SoftsignGrad"))
    for op in SPECIAL:
        special(g, op)
    betainc(g)
