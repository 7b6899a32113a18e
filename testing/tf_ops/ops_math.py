"""Op cases for the math ops: element-wise unary and binary ops (with
broadcasting and their gradients), LogicalNot, reductions, ArgMax/ArgMin,
Cumsum, MatMul/BatchMatMul, Cast, Select/SelectV2, AddN and the gradient
helpers of the unary ops (SqrtGrad, TanhGrad, ...).

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, np_type, raw
import numpy as np
import tensorflow as tf


# Elementwise unary ops: input kind, differentiable.
UNARY = {
    "Abs": ("any", True), "Ceil": ("any", False), "Exp": ("any", True),
    "Floor": ("any", False), "Inv": ("nonzero", True), "Log": ("pos", True),
    "Log1p": ("pos", True), "Neg": ("any", True),
    "Reciprocal": ("nonzero", True), "Round": ("any", False),
    "Rsqrt": ("pos", True), "Sigmoid": ("any", True), "Sign": ("any", False),
    "Sqrt": ("pos", True), "Square": ("any", True), "Tanh": ("any", True),
    "Elu": ("any", True), "Relu": ("any", True), "Relu6": ("wide", True),
    "Softplus": ("any", True),
}


def unary(g, op, fn=None, spec=None):
    """Cases for an element-wise unary op; spec = (input kind,
    differentiable), UNARY[op] by default."""
    kind, differentiable = spec or UNARY[op]
    arg = g.ops[op]["op_def"]["input_arg"][0]["name"] if op in g.ops else "x"
    f = fn or (lambda x: getattr(raw, op)(**{arg: x}))
    for i, t in enumerate(g.types(op)):
        g.add(op, "dtype_" + t,
              lambda c, t=t: f(c.input(DTYPES[t], [2, 3], kind, name="x")),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: f(c.input(tf.float32, [], kind, name="x")))
    g.add(op, "empty", lambda c: f(c.input(tf.float32, [0, 3], kind, name="x")))
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 1e-30,
                         0.5, -0.5, 1.5, 2.5, -2.5, 6.0, 6.5, -1.0], np.float32)
    g.add(op, "special_float",
          lambda c: f(c.feed(specials, name="x")),
          note="infinities, NaN, signed zeros, huge/tiny, halves and edges")
    if op in ("Abs", "Neg", "Sign", "Square", "Relu", "Relu6", "Round"):
        edges = np.array([np.iinfo(np.int32).min, -7, -1, 0, 1, 7,
                          np.iinfo(np.int32).max], np.int32)
        g.add(op, "int32_edges", lambda c: f(c.feed(edges, name="x")))
    if differentiable:
        for t in ("float", "double"):
            g.add(op, "grad_" + t,
                  lambda c, t=t: (lambda x: grads(c, [f(x)], [x]))(
                      c.input(DTYPES[t], [3, 4], kind, name="x", static=True)),
                  golden=(t == "float"))


# Elementwise binary ops: input kind of y.
BINARY = {
    "Add": "any", "AddV2": "any", "Sub": "any", "Mul": "any",
    "Div": "nonzero", "RealDiv": "nonzero", "FloorDiv": "nonzero",
    "FloorMod": "nonzero", "Mod": "nonzero", "TruncateDiv": "nonzero",
    "Pow": "small", "Maximum": "any", "Minimum": "any",
    "SquaredDifference": "any", "Equal": "any", "NotEqual": "any",
    "Greater": "any", "GreaterEqual": "any", "Less": "any",
    "LessEqual": "any", "LogicalAnd": "any", "LogicalOr": "any",
}
BINARY_GRAD = ("Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Pow",
               "Maximum", "Minimum", "SquaredDifference", "FloorMod")
DIVISIONS = ("Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "TruncateMod")


def binary(g, op, ykind=None, differentiable=None):
    """Cases for an element-wise binary op; ykind is y's input kind
    (BINARY[op] by default), differentiable whether to add gradient cases
    (op in BINARY_GRAD by default)."""
    ykind = ykind or BINARY[op]
    if differentiable is None:
        differentiable = op in BINARY_GRAD
    raw_f = getattr(raw, op)

    def f(x, y, **attrs):
        return raw_f(x=x, y=y, **attrs)
    xkind = "pos" if op == "Pow" else "any"
    types = ["bool"] if op.startswith("Logical") else g.types(op)
    first = "bool" if op.startswith("Logical") else \
        "float" if "float" in types else "int32"

    def pair(c, t, xs, ys, static=False):
        return (c.input(DTYPES[t], xs, xkind, name="x", static=static),
                c.input(DTYPES[t], ys, ykind, name="y", static=static))

    for t in types:
        g.add(op, "dtype_" + t, lambda c, t=t: f(*pair(c, t, [2, 3], [2, 3])),
              golden=(t == first))
    g.add(op, "broadcast", lambda c: f(*pair(c, first, [2, 1, 3], [4, 1])))
    g.add(op, "scalar_tensor", lambda c: f(*pair(c, first, [], [2, 3])))
    g.add(op, "tensor_scalar", lambda c: f(*pair(c, first, [3], [])))
    g.add(op, "empty", lambda c: f(*pair(c, first, [0, 3], [3])))
    g.add(op, "incompatible", lambda c: f(*pair(c, first, [2, 3], [4])),
          golden=True, note="shapes that do not broadcast")
    if op in ("Equal", "NotEqual"):
        g.add(op, "incompatible_no_error",
              lambda c: f(*pair(c, first, [2, 3], [4]), incompatible_shape_error=False))
        g.add(op, "nan",
              lambda c: f(c.feed(np.array([np.nan, 1, np.nan], np.float32), name="x"),
                          c.feed(np.array([np.nan, 1, 2], np.float32), name="y")))
    if op in DIVISIONS:
        it = "int32" if op not in ("Mod", "TruncateMod") else "int64"
        for t in [it] + (["uint8"] if "uint8" in types else []):
            g.add(op, "zero_divisor_" + t,
                  lambda c, t=t: f(c.feed(np.array([1, 2, 3], np_type(DTYPES[t])), name="x"),
                                   c.feed(np.array([1, 0, 2], np_type(DTYPES[t])), name="y")),
                  note="integer division by zero")
        if "float" in types:
            g.add(op, "zero_divisor_float",
                  lambda c: f(c.feed(np.array([1, -2, 0, 3], np.float32), name="x"),
                              c.feed(np.array([0, 0, 0, -0.0], np.float32), name="y")))
        g.add(op, "negative_int32",
              lambda c: f(c.feed(np.array([7, -7, 7, -7, 0, -1], np.int32), name="x"),
                          c.feed(np.array([2, 2, -2, -2, 3, 4], np.int32), name="y")),
              note="rounding and sign conventions with negative operands")
        if op in ("FloorMod", "Mod", "TruncateMod", "FloorDiv") and "float" in types:
            g.add(op, "negative_float",
                  lambda c: f(c.feed(np.array([7.5, -7.5, 7.5, -7.5], np.float32), name="x"),
                              c.feed(np.array([2, 2, -2, -2], np.float32), name="y")))
    if op == "Pow":
        g.add(op, "int_negative_exponent",
              lambda c: f(c.feed(np.array([2, 3], np.int32), name="x"),
                          c.feed(np.array([1, -1], np.int32), name="y")))
        g.add(op, "float_negative_base",
              lambda c: f(c.feed(np.array([-2, -2, 0, 0], np.float32), name="x"),
                          c.feed(np.array([2, 0.5, 0, -1], np.float32), name="y")))
    if op in ("Maximum", "Minimum"):
        g.add(op, "nan",
              lambda c: f(c.feed(np.array([np.nan, 1, np.nan], np.float32), name="x"),
                          c.feed(np.array([1, np.nan, np.nan], np.float32), name="y")))
    if op in ("Add", "Equal", "NotEqual") and "string" in types:
        g.add(op, "string_broadcast",
              lambda c: f(c.input(tf.string, [2, 3], name="x"),
                          c.input(tf.string, [3], name="y")))
    if differentiable:
        g.add(op, "grad_float",
              lambda c: (lambda x, y: grads(c, [f(x, y)], [x, y]))(
                  *pair(c, "float", [2, 3], [2, 3], static=True)),
              golden=True)
        g.add(op, "grad_double_broadcast",
              lambda c: (lambda x, y: grads(c, [f(x, y)], [x, y]))(
                  *pair(c, "double", [2, 1, 3], [4, 1], static=True)))
        g.add(op, "grad_dynamic_shapes",
              lambda c: (lambda x, y: grads(c, [f(x, y)], [x, y],
                                            dys=[c.rand(tf.float32, [4, 3])]))(
                  *pair(c, "float", [4, 1], [3])),
              note="shapes known only at run time: BroadcastGradientArgs")


def logical_not(g):
    g.add("LogicalNot", "bool", lambda c: raw.LogicalNot(x=c.input(tf.bool, [2, 3])),
          golden=True)
    g.add("LogicalNot", "scalar", lambda c: raw.LogicalNot(x=c.input(tf.bool, [])))
    g.add("LogicalNot", "empty", lambda c: raw.LogicalNot(x=c.input(tf.bool, [0])))


REDUCTIONS = ("Sum", "Mean", "Prod", "Max", "Min", "All", "Any")


def reduction(g, op):
    f = getattr(raw, op)
    logical = op in ("All", "Any")
    types = ["bool"] if logical else g.types(op)
    first = "bool" if logical else "float"

    def red(c, t, shape, axis, keep=False, tidx=np.int32, static=False):
        x = c.input(DTYPES[t], shape, "pos" if op == "Prod" else "any", name="x",
                    static=static)
        a = tf.constant(np.array(axis, tidx)) if static else \
            c.feed(np.array(axis, tidx), name="axis")
        return f(input=x, axis=a, keep_dims=keep)

    for t in types:
        g.add(op, "dtype_" + t, lambda c, t=t: red(c, t, [2, 3, 4], [1]),
              golden=(t == first))
    g.add(op, "keep_dims", lambda c: red(c, first, [2, 3, 4], [0, 2], keep=True))
    g.add(op, "negative_axis", lambda c: red(c, first, [2, 3, 4], [-1]))
    g.add(op, "scalar_axis", lambda c: red(c, first, [2, 3], 0))
    g.add(op, "all_axes", lambda c: red(c, first, [2, 3], [0, 1]))
    g.add(op, "no_axes", lambda c: red(c, first, [2, 3], np.zeros([0], np.int32)))
    g.add(op, "scalar_input", lambda c: red(c, first, [], np.zeros([0], np.int32)))
    g.add(op, "empty_reduced", lambda c: red(c, first, [0, 3], [0]),
          note="reducing a zero-sized dimension gives the identity")
    g.add(op, "empty_kept", lambda c: red(c, first, [0, 3], [1]))
    g.add(op, "int64_axis", lambda c: red(c, first, [2, 3], [1], tidx=np.int64))
    g.add(op, "axis_out_of_range", lambda c: red(c, first, [2, 3], [2]), golden=True)
    g.add(op, "duplicate_axes", lambda c: red(c, first, [2, 3], [1, -1]))
    g.add(op, "matrix_axis", lambda c: red(c, first, [2, 3], [[0], [1]]),
          note="a rank-2 axis argument")
    if op == "Mean":
        g.add(op, "int32_truncates",
              lambda c: f(input=c.feed(np.array([[1, 2], [-3, -4]], np.int32), name="x"),
                          axis=c.feed(np.array([1], np.int32), name="axis")))
    if op in ("Max", "Min"):
        g.add(op, "nan",
              lambda c: f(input=c.feed(np.array([[np.nan, 1], [2, 3]], np.float32),
                                       name="x"),
                          axis=c.feed(np.array([1], np.int32), name="axis")))
    if not logical:
        for t in ("float", "double"):
            g.add(op, "grad_" + t,
                  lambda c, t=t: (lambda x: grads(c, [f(input=x, axis=tf.constant([1]))],
                                                  [x]))(
                      c.input(DTYPES[t], [2, 3, 4], "pos", name="x", static=True)),
                  # Prod's gradient needs ops stepflow lacks (known_differences).
                  golden=(t == "float" and op != "Prod"))
        g.add(op, "grad_keep_dims_all",
              lambda c: (lambda x: grads(
                  c, [f(input=x, axis=tf.constant([0, 1]), keep_dims=True)], [x]))(
                      c.input(tf.float32, [3, 2], "pos", name="x", static=True)))


def matmul(g):
    op = "MatMul"
    f = raw.MatMul

    def mm(c, t, ash, bsh, ta=False, tb=False, static=False):
        a = c.input(DTYPES[t], ash, name="a", static=static)
        b = c.input(DTYPES[t], bsh, name="b", static=static)
        return a, b, f(a=a, b=b, transpose_a=ta, transpose_b=tb)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: mm(c, t, [2, 3], [3, 4])[2],
              golden=(t == "float"))
    for ta in (False, True):
        for tb in (False, True):
            g.add(op, "transpose_%d%d" % (ta, tb),
                  lambda c, ta=ta, tb=tb: mm(c, "float", [3, 2] if ta else [2, 3],
                                             [4, 3] if tb else [3, 4], ta, tb)[2])
    g.add(op, "complex_transpose_a",
          lambda c: mm(c, "complex64", [3, 2], [3, 2], ta=True)[2],
          note="transpose does not conjugate")
    g.add(op, "inner_mismatch", lambda c: mm(c, "float", [2, 3], [4, 5])[2], golden=True)
    g.add(op, "rank3", lambda c: mm(c, "float", [2, 2, 3], [3, 4])[2])
    g.add(op, "vector", lambda c: mm(c, "float", [3], [3, 4])[2])
    g.add(op, "empty_inner", lambda c: mm(c, "float", [2, 0], [0, 3])[2])
    g.add(op, "empty_outer", lambda c: mm(c, "float", [0, 3], [3, 4])[2])
    g.add(op, "larger", lambda c: mm(c, "float", [17, 33], [33, 9])[2])
    for ta, tb in ((False, False), (True, False), (False, True)):
        g.add(op, "grad_%d%d" % (ta, tb),
              lambda c, ta=ta, tb=tb: (lambda a, b, y: grads(c, [y], [a, b]))(
                  *mm(c, "float", [3, 2] if ta else [2, 3], [4, 3] if tb else [3, 4],
                      ta, tb, static=True)),
              golden=(not ta and not tb))
    g.add(op, "grad_double",
          lambda c: (lambda a, b, y: grads(c, [y], [a, b]))(
              *mm(c, "double", [2, 3], [3, 4], static=True)))


def batch_matmul(g, op):
    f = getattr(raw, op)

    def bmm(c, t, xs, ys, ax=False, ay=False, static=False):
        x = c.input(DTYPES[t], xs, name="x", static=static)
        y = c.input(DTYPES[t], ys, name="y", static=static)
        return x, y, f(x=x, y=y, adj_x=ax, adj_y=ay)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bmm(c, t, [2, 2, 3], [2, 3, 4])[2],
              golden=(t == "float"))
    for ax in (False, True):
        for ay in (False, True):
            g.add(op, "adj_%d%d" % (ax, ay),
                  lambda c, ax=ax, ay=ay: bmm(c, "float", [2, 3, 2] if ax else [2, 2, 3],
                                              [2, 4, 3] if ay else [2, 3, 4], ax, ay)[2])
    g.add(op, "complex_adjoint",
          lambda c: bmm(c, "complex64", [2, 3, 2], [2, 4, 3], True, True)[2],
          note="adj_x/adj_y conjugate")
    g.add(op, "broadcast_batch", lambda c: bmm(c, "float", [2, 1, 2, 3], [3, 3, 4])[2],
          golden=True)
    g.add(op, "rank2", lambda c: bmm(c, "float", [2, 3], [3, 4])[2])
    g.add(op, "rank4", lambda c: bmm(c, "float", [2, 2, 2, 3], [2, 2, 3, 2])[2])
    g.add(op, "inner_mismatch", lambda c: bmm(c, "float", [2, 2, 3], [2, 4, 4])[2])
    g.add(op, "batch_mismatch", lambda c: bmm(c, "float", [2, 2, 3], [3, 3, 4])[2])
    g.add(op, "rank1", lambda c: bmm(c, "float", [3], [3])[2])
    g.add(op, "empty_batch", lambda c: bmm(c, "float", [0, 2, 3], [0, 3, 4])[2])
    g.add(op, "grad_float",
          lambda c: (lambda x, y, z: grads(c, [z], [x, y]))(
              *bmm(c, "float", [2, 2, 3], [2, 3, 4], static=True)),
          golden=True)
    g.add(op, "grad_adj",
          lambda c: (lambda x, y, z: grads(c, [z], [x, y]))(
              *bmm(c, "double", [2, 3, 2], [2, 4, 3], True, True, static=True)))


def cumsum(g, op="Cumsum"):
    """Cases for the scans Cumsum and Cumprod."""
    f = getattr(raw, op)

    def cs(c, t, shape, axis, ex=False, rev=False, tidx=np.int32):
        return f(x=c.input(DTYPES[t], shape, name="x"),
                 axis=c.feed(np.array(axis, tidx), name="axis"), exclusive=ex, reverse=rev)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cs(c, t, [2, 3], 1), golden=(t == "float"))
    for ex in (False, True):
        for rev in (False, True):
            g.add(op, "exclusive%d_reverse%d" % (ex, rev),
                  lambda c, ex=ex, rev=rev: cs(c, "float", [3, 4], 0, ex, rev),
                  golden=(ex and rev))
    g.add(op, "negative_axis", lambda c: cs(c, "float", [2, 3, 2], -2))
    g.add(op, "axis_out_of_range", lambda c: cs(c, "float", [2, 3], 2))
    g.add(op, "axis_vector", lambda c: cs(c, "float", [2, 3], [1]))
    g.add(op, "scalar_input", lambda c: cs(c, "float", [], 0))
    g.add(op, "empty", lambda c: cs(c, "float", [0, 3], 0))
    g.add(op, "int64_axis", lambda c: cs(c, "int32", [2, 3], 1, tidx=np.int64))
    for t in ("float", "double"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda x: grads(
                  c, [f(x=x, axis=tf.constant(1), exclusive=True)], [x]))(
                  c.input(DTYPES[t], [2, 3], name="x", static=True)),
              golden=(t == "float"))


def cast(g):
    op = "Cast"
    src = g.types(op, "SrcT")
    dst = g.types(op, "DstT")
    for t in src:
        g.add(op, "from_" + t,
              lambda c, t=t: raw.Cast(x=c.input(DTYPES[t], [2, 3], "pos", name="x"),
                                      DstT=tf.float32),
              golden=(t == "int32"))
    for t in dst:
        if t == "float":
            continue
        g.add(op, "to_" + t,
              lambda c, t=t: raw.Cast(x=c.input(tf.float32, [2, 3], name="x"),
                                      DstT=DTYPES[t]),
              golden=(t == "bfloat16"))
    values = {
        "int64_to_int32_wraps": (np.array([2**31, -2**31 - 1, 2**40 + 5], np.int64), tf.int32),
        "int32_to_uint8_wraps": (np.array([-1, 256, 300, 255], np.int32), tf.uint8),
        "float_to_int32_truncates": (np.array([1.7, -1.7, 0.5, -0.5], np.float32), tf.int32),
        "float_to_bool": (np.array([0, -0.0, 0.5, np.nan, -2], np.float32), tf.bool),
        "bool_to_int32": (np.array([True, False]), tf.int32),
        "double_to_float_rounds": (np.array([1 + 2**-30, 1e300, -1e-300], np.float64),
                                   tf.float32),
        "float_to_half_rounds": (np.array([65504, 70000, 1e-8, 1.0009765625],
                                          np.float32), tf.float16),
        "complex_to_float": (np.array([1 + 2j, -3 - 4j], np.complex64), tf.float32),
        "float_to_complex": (np.array([1.5, -2], np.float32), tf.complex128),
        "uint64_to_float": (np.array([2**64 - 1, 3], np.uint64), tf.float32),
        "float_to_uint8_wraps": (np.array([-1.7, -300.5, 300.5, 70000, -70000, 255.9],
                                          np.float32), tf.uint8),
        "float_to_int16_wraps": (np.array([70000.5, -70000.5, 32767.9, -32768.9],
                                          np.float32), tf.int16),
        "double_to_uint64_wraps": (np.array([-1.5, -1e10, 3.5, 1e19], np.float64),
                                   tf.uint64),
        "float_to_int32_out_of_range": (np.array([1e10, -1e10, np.nan, np.inf, -np.inf],
                                                 np.float32), tf.int32),
        "double_to_int64_out_of_range": (np.array([1e19, -1e19, np.nan, np.inf],
                                                  np.float64), tf.int64),
        "int32_to_string": (np.array([1, 2], np.int32), tf.string),
        "string_to_int32": (np.array([b"1", b"2"], object), tf.int32),
        "string_to_string": (np.array([b"a", b"bc"], object), tf.string),
        "scalar": (np.array(3.5, np.float32), tf.int64),
        "empty": (np.zeros([0, 2], np.float32), tf.int32),
    }
    for name, (v, to) in values.items():
        g.add(op, name, lambda c, v=v, to=to: raw.Cast(x=c.feed(v, name="x"), DstT=to))
    g.add(op, "float_to_bfloat16_truncate",
          lambda c: raw.Cast(x=c.feed(np.array([1.00390625, 1.01171875, -1.0078125],
                                               np.float32), name="x"),
                             DstT=tf.bfloat16, Truncate=True))
    g.add(op, "float_to_bfloat16_rounds",
          lambda c: raw.Cast(x=c.feed(np.array([1.00390625, 1.01171875, -1.0078125],
                                               np.float32), name="x"),
                             DstT=tf.bfloat16))
    g.add(op, "grad_float_to_double",
          lambda c: (lambda x: grads(c, [tf.cast(x, tf.float64)], [x]))(
              c.input(tf.float32, [2, 3], name="x", static=True)), golden=True)


def select(g, op):
    f = getattr(raw, op)

    def sel(c, cs, ts, es, t="float", static=False):
        cond = c.input(tf.bool, cs, name="cond", static=static)
        a = c.input(DTYPES[t], ts, name="t", static=static)
        b = c.input(DTYPES[t], es, name="e", static=static)
        # tf.raw_ops spells Select's t and e as x and y.
        args = dict(x=a, y=b) if op == "Select" else dict(t=a, e=b)
        return a, b, f(condition=cond, **args)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: sel(c, [2, 3], [2, 3], [2, 3], t)[2],
              golden=(t == "float"))
    g.add(op, "scalar_cond", lambda c: sel(c, [], [2, 3], [2, 3])[2])
    g.add(op, "vector_cond_rows", lambda c: sel(c, [2], [2, 3], [2, 3])[2],
          golden=(op == "Select"))
    g.add(op, "broadcast_all", lambda c: sel(c, [2, 1], [1, 3], [3])[2],
          golden=(op == "SelectV2"))
    g.add(op, "mismatch", lambda c: sel(c, [2, 3], [2, 3], [3, 2])[2])
    g.add(op, "cond_mismatch", lambda c: sel(c, [3], [2, 3], [2, 3])[2])
    g.add(op, "empty", lambda c: sel(c, [0, 3], [0, 3], [0, 3])[2])
    g.add(op, "grad_float",
          lambda c: (lambda a, b, y: grads(c, [y], [a, b]))(
              *sel(c, [2, 3], [2, 3], [2, 3], static=True)), golden=True)
    if op == "SelectV2":
        g.add(op, "grad_broadcast",
              lambda c: (lambda a, b, y: grads(c, [y], [a, b]))(
                  *sel(c, [2, 1], [1, 3], [3], static=True)))


def add_n(g):
    op = "AddN"

    def an(c, shapes, t="float", static=False):
        xs = [c.input(DTYPES[t], s, name="x%d" % i, static=static)
              for i, s in enumerate(shapes)]
        return xs, raw.AddN(inputs=xs)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: an(c, [[2, 3]] * 3, t)[1],
              golden=(t == "float"))
    g.add(op, "n1", lambda c: an(c, [[2, 3]])[1])
    g.add(op, "scalars", lambda c: an(c, [[]] * 4)[1])
    g.add(op, "shape_mismatch", lambda c: an(c, [[2, 3], [3]])[1], golden=True)
    g.add(op, "empty", lambda c: an(c, [[0, 3]] * 2)[1])
    g.add(op, "grad_float", lambda c: (lambda xs, y: grads(c, [y], xs))(
        *an(c, [[2, 3]] * 3, static=True)))


# Gradient ops of elementwise functions: (first, second) input names, kinds.
CWISE_GRADS = {
    "EluGrad": ("gradients", "outputs", "any", "any"),
    "Relu6Grad": ("gradients", "features", "any", "wide"),
    "ReluGrad": ("gradients", "features", "any", "any"),
    "SoftplusGrad": ("gradients", "features", "any", "any"),
    "InvGrad": ("y", "dy", "nonzero", "any"),
    "ReciprocalGrad": ("y", "dy", "nonzero", "any"),
    "RsqrtGrad": ("y", "dy", "pos", "any"),
    "SigmoidGrad": ("y", "dy", "unit", "any"),
    "SqrtGrad": ("y", "dy", "pos", "any"),
    "TanhGrad": ("y", "dy", "unit", "any"),
}


def cwise_grad(g, op, spec=None, second_order=True):
    """Cases for an element-wise gradient op; spec = (first, second input
    name, their kinds), CWISE_GRADS[op] by default; second_order: whether
    TensorFlow defines the op's own gradient."""
    a, b, ka, kb = spec or CWISE_GRADS[op]
    f = getattr(raw, op)

    def cg(c, t, sa, sb, static=False):
        x = c.input(DTYPES[t], sa, ka, name=a, static=static)
        y = c.input(DTYPES[t], sb, kb, name=b, static=static)
        return x, y, f(**{a: x, b: y})

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cg(c, t, [2, 3], [2, 3])[2],
              golden=(t == "float"))
    g.add(op, "shape_mismatch", lambda c: cg(c, "float", [2, 3], [3])[2], golden=True)
    g.add(op, "scalar", lambda c: cg(c, "float", [], [])[2])
    g.add(op, "empty", lambda c: cg(c, "float", [0, 3], [0, 3])[2])
    g.add(op, "special_float",
          lambda c: f(**{a: c.feed(np.array([0, -0.0, np.inf, np.nan, 6, 1], np.float32)),
                         b: c.feed(np.array([1, 2, 0, 1, -1, 0], np.float32))}))
    if second_order:
        g.add(op, "second_order",
              lambda c: (lambda x, y, z: grads(c, [z], [x, y]))(
                  *cg(c, "float", [2, 3], [2, 3], static=True)))


def argminmax(g, op):
    f = getattr(raw, op)

    def am(c, shape, axis, t="float", out=tf.int64, tidx=np.int32):
        return f(input=c.input(DTYPES[t], shape, name="x"),
                 dimension=c.feed(np.array(axis, tidx), name="axis"), output_type=out)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: am(c, [3, 4], 1, t), golden=(t == "float"))
    g.add(op, "axis0_int32_out", lambda c: am(c, [3, 4], 0, out=tf.int32))
    g.add(op, "negative_axis", lambda c: am(c, [2, 3, 4], -2))
    g.add(op, "int64_axis", lambda c: am(c, [3, 4], 1, tidx=np.int64))
    g.add(op, "rank1", lambda c: am(c, [5], 0))
    g.add(op, "ties",
          lambda c: f(input=c.feed(np.array([[1, 3, 3], [2, 2, 2]], np.int32), name="x"),
                      dimension=c.feed(np.array(1, np.int32), name="axis")),
          note="the first of equal values wins")
    g.add(op, "nan",
          lambda c: f(input=c.feed(np.array([1, np.nan, 3], np.float32), name="x"),
                      dimension=c.feed(np.array(0, np.int32), name="axis")))
    g.add(op, "empty_axis", lambda c: am(c, [3, 0], 1), golden=True)
    g.add(op, "empty_other", lambda c: am(c, [0, 3], 1))
    g.add(op, "axis_out_of_range", lambda c: am(c, [3, 4], 2))
    g.add(op, "scalar_input", lambda c: am(c, [], 0))
