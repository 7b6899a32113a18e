"""Generates the op differential: oracle cases for every op stepflow registers.

For each op in the registered-ops JSON (//testing/tf_oracle:registered_ops),
this writes oracle cases (testing/tf_oracle/README.md) under
OUT_DIR/<Op>/<case>/, named "ops/<Op>/<case>", and records TensorFlow's
result of each in <case>/expected with tf_oracle.run_case. The graphs are
built in TensorFlow's graph mode from tf.raw_ops and tf.compat.v1 APIs;
inputs are placeholders fed with fixed-seed NumPy values, so shapes, axes
and sizes are runtime values unless a case needs them static (gradients).

Per op the cases cover the dtypes either system's CPU kernels accept (a
dtype only one of them accepts is a case too: the error codes must agree),
scalar, empty and broadcast shapes, the attr variants, inputs TensorFlow
rejects, and for differentiable ops the graph tf.gradients builds for a
scalar function of the op's output, so the gradient ops run the way
TensorFlow's training graphs use them. Ops no TensorFlow-written GraphDef
can hold are listed with a reason in exempt_ops.txt beside this file.

Usage (the interpreter is $STEPFLOW_TF_PYTHON, tools/install_tf.sh):
  generate_op_cases.py OUT_DIR --ops_json=FILE [--golden] [--only=Op1,Op2]

--golden writes only the compact subset meant to be committed
(testing/tf_goldens/ops): one to three small cases per op (a few more where
they hold a fix, EXTRA_GOLDEN); exempt ops get none.
Exit status: 0, or 1 when a registered op that is not exempt got no case or
a case could not be built.
"""

import argparse
import json
import os
import shutil
import sys
import time
import zlib

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "tf_oracle"))

import tf_oracle  # noqa: E402  (sets TensorFlow's environment first)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import attr_value_pb2  # noqa: E402
from tensorflow.python.framework import kernels as tf_kernels  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

# Every graph here that uses tf.cond or tf.while_loop builds TensorFlow 1's
# control-flow primitives (Switch, Merge, Enter, ...), which stepflow runs.
tf.compat.v1.disable_control_flow_v2()

v1 = tf.compat.v1
raw = tf.raw_ops

# The dtypes a case may use, by stepflow's spelling (DataTypeString without
# the DT_ prefix), in the order cases are written.
DTYPES = {
    "float": tf.float32, "double": tf.float64, "half": tf.float16,
    "bfloat16": tf.bfloat16, "int8": tf.int8, "int16": tf.int16,
    "int32": tf.int32, "int64": tf.int64, "uint8": tf.uint8,
    "uint16": tf.uint16, "uint32": tf.uint32, "uint64": tf.uint64,
    "complex64": tf.complex64, "complex128": tf.complex128,
    "bool": tf.bool, "string": tf.string,
}
NAME_OF = {v: k for k, v in DTYPES.items()}
# For a type attr any dtype satisfies (no kernel constraint on either side):
# one of each family.
ANY_TYPES = ["float", "int32", "int64", "half", "bool", "string", "complex64"]
# Which dtypes no kernel accepts a case tries first.
REFUSED_PRIORITY = ["int32", "half", "string", "bool", "int8", "complex64",
                    "uint8", "int16", "int64", "bfloat16", "double", "uint16",
                    "uint32", "uint64", "complex128", "float"]
WORDS = [b"", b"a", b"tf", b"step", b"flow", b"xyz", b"\x00b", b"long word"]
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def np_type(dtype):
    dtype = tf.as_dtype(dtype)
    return object if dtype == tf.string else dtype.as_numpy_dtype


class Spec:
    """What a case runs: fetched tensors, target and init ops, steps."""

    def __init__(self, fetches=(), targets=(), init=(), steps=1,
                 scratch=False, edit=None, extra_fetch_names=()):
        self.fetches = list(fetches)
        self.targets = list(targets)
        self.init = list(init)
        self.steps = steps
        self.scratch = scratch
        # Called with the GraphDef before it is written (for nodes that
        # TensorFlow's Python layer will not build).
        self.edit = edit
        self.extra_fetch_names = list(extra_fetch_names)


class Ctx:
    """One case's graph-building state: its random stream and its feeds."""

    def __init__(self, rng):
        self.rng = rng
        self.feeds = {}
        self._count = 0

    def _name(self, name):
        if name is None:
            name = "in%d" % self._count
            self._count += 1
        return name

    def feed(self, value, dtype=None, name=None, static=False):
        """A placeholder fed with `value` (shape unknown unless static)."""
        if dtype is None:
            arr = np.asarray(value)
            dtype = tf.string if arr.dtype.kind in "OSU" else tf.as_dtype(arr.dtype)
        dtype = tf.as_dtype(dtype)
        value = np.asarray(value, dtype=np_type(dtype))
        shape = value.shape if static else None
        p = v1.placeholder(dtype, shape=shape, name=self._name(name))
        self.feeds[p.name] = value
        return p

    def rand(self, dtype, shape, kind="any"):
        """Fixed-seed values of `dtype` for an op's input.

        kind: "any" (both signs, zero included for ints), "pos" (> 0),
        "nonzero", "unit" (|x| < 1), "wide" (floats in [-8, 8]), "small"
        (ints in [0, 4))."""
        dtype = tf.as_dtype(dtype)
        rng = self.rng
        shape = tuple(shape)
        if dtype == tf.string:
            idx = rng.randint(0, len(WORDS), size=shape)
            return np.vectorize(lambda i: WORDS[i], otypes=[object])(idx) \
                if idx.size else np.zeros(shape, dtype=object)
        if dtype == tf.bool:
            return rng.rand(*shape) < 0.5
        if dtype.is_complex:
            re = self.rand(tf.float64, shape, kind)
            im = self.rand(tf.float64, shape, "any")
            return (re + 1j * im).astype(np_type(dtype))
        if dtype.is_floating:
            if kind == "pos":
                v = rng.uniform(0.25, 3.0, size=shape)
            elif kind == "nonzero":
                v = rng.uniform(0.5, 3.0, size=shape) * rng.choice([-1, 1], size=shape)
            elif kind == "unit":
                v = rng.uniform(-0.9, 0.9, size=shape)
            elif kind == "wide":
                v = rng.uniform(-8.0, 8.0, size=shape)
            else:
                v = rng.uniform(-3.0, 3.0, size=shape)
            # Multiples of 1/64: short binary fractions, so narrow types
            # (half, bfloat16) round them little or not at all.
            return (np.round(v * 64) / 64).astype(np_type(dtype))
        unsigned = dtype.is_unsigned
        if kind == "pos" or (kind == "nonzero" and unsigned):
            lo, hi = 1, 7
        elif kind == "small":
            lo, hi = 0, 4
        elif kind == "nonzero":
            v = rng.randint(1, 7, size=shape) * rng.choice([-1, 1], size=shape)
            return v.astype(np_type(dtype))
        elif unsigned:
            lo, hi = 0, 12
        else:
            lo, hi = -6, 7
        return rng.randint(lo, hi, size=shape).astype(np_type(dtype))

    def input(self, dtype, shape, kind="any", name=None, static=False):
        """A placeholder fed with rand(dtype, shape, kind)."""
        return self.feed(self.rand(dtype, shape, kind), dtype=dtype, name=name,
                         static=static)

    def const(self, value, dtype=None, name=None):
        return tf.constant(value, dtype=dtype, name=name)


def grads(ctx, ys, xs, dys=None):
    """Gradients of a scalar function of `ys` with respect to `xs`.

    Without `dys` the function is sum_i reduce_sum(ys[i] * w_i) with fixed
    random constants w_i (ys need static shapes); with `dys` (one value per
    y) they are fed as the incoming gradients instead, for graphs whose
    shapes are only known at run time. IndexedSlices gradients are fetched
    as their values and indices; inputs with no gradient are skipped."""
    ys = list(ys)
    if dys is None:
        terms = []
        for y in ys:
            w = ctx.rand(y.dtype, y.shape.as_list(), "any")
            terms.append(tf.reduce_sum(y * tf.constant(w, dtype=y.dtype)))
        loss = terms[0] if len(terms) == 1 else tf.add_n(terms)
        gs = tf.gradients(loss, xs)
    else:
        grad_ys = [ctx.feed(v, dtype=y.dtype, name="dy%d" % i)
                   for i, (y, v) in enumerate(zip(ys, dys))]
        gs = tf.gradients(ys, xs, grad_ys=grad_ys)
    out = []
    for g in gs:
        if g is None:
            continue
        if isinstance(g, tf.IndexedSlices):
            out.extend([g.values, g.indices])
        else:
            out.append(g)
    if not out:
        raise ValueError("no gradient")
    return out


def attr_value(v):
    """An AttrValue for a NodeDef built by hand."""
    a = attr_value_pb2.AttrValue()
    if isinstance(v, tf.DType):
        a.type = v.as_datatype_enum
    elif isinstance(v, bool):
        a.b = v
    elif isinstance(v, int):
        a.i = v
    elif isinstance(v, float):
        a.f = v
    elif isinstance(v, (str, bytes)):
        a.s = v.encode() if isinstance(v, str) else v
    elif isinstance(v, tf.TensorShape):
        a.shape.CopyFrom(v.as_proto())
    elif isinstance(v, np.ndarray):
        a.tensor.CopyFrom(tf.make_tensor_proto(v))
    elif isinstance(v, list) and all(isinstance(t, tf.DType) for t in v) and v:
        a.list.type.extend([t.as_datatype_enum for t in v])
    elif isinstance(v, list):
        a.list.i.extend(v)
    else:
        raise TypeError("attr %r" % (v,))
    return a


def set_attr(node, attr, value):
    """A GraphDef edit setting `node`'s `attr` (for values Python rejects)."""
    def edit(graph_def):
        for n in graph_def.node:
            if n.name == node:
                n.attr[attr].CopyFrom(attr_value(value))
                return
        raise KeyError(node)
    return edit


def add_node(graph_def, name, op, inputs=(), **attrs):
    """Appends a NodeDef TensorFlow's Python layer would not build."""
    n = graph_def.node.add()
    n.name = name
    n.op = op
    n.input.extend(inputs)
    for k, v in attrs.items():
        n.attr[k].CopyFrom(attr_value(v))
    return n


class Generator:
    """Writes and records the cases; tracks which ops got cases."""

    def __init__(self, out_dir, ops, golden, only, exempt=()):
        self.out_dir = out_dir
        # Exempt ops (exempt_ops.txt) get live cases but no golden ones.
        self.exempt = set(exempt)
        self.ops = ops  # name -> registered_ops entry
        self.golden = golden
        self.only = set(only) if only else None
        self.counts = {}
        self.failures = []
        self.codes = {}

    def wants(self, op):
        return self.only is None or op in self.only

    def add(self, op, name, build, golden=False, note=""):
        """Builds the case ops/<op>/<name> and records TensorFlow's result.

        build(ctx) returns a Spec, or a list of tensors/ops to fetch."""
        key = "%s/%s" % (op, name)
        golden = (golden or key in EXTRA_GOLDEN) and key not in NOT_GOLDEN
        if not self.wants(op) or (self.golden and (not golden or op in self.exempt)):
            return
        full = "ops/" + key
        ctx = Ctx(np.random.RandomState(zlib.crc32(full.encode())))
        graph = tf.Graph()
        try:
            with graph.as_default():
                spec = build(ctx)
                if not isinstance(spec, Spec):
                    spec = Spec(fetches=spec if isinstance(spec, (list, tuple)) else [spec])
        except Exception as e:  # noqa: BLE001 -- reported with the case name.
            self.failures.append("%s: cannot build: %s" % (full, str(e).splitlines()[0]
                                                            if str(e) else repr(e)))
            return
        fetches = [f.name for f in spec.fetches] + spec.extra_fetch_names
        graph_def = graph.as_graph_def()
        if spec.edit is not None:
            spec.edit(graph_def)
        case_dir = os.path.join(self.out_dir, op, name)
        if os.path.isdir(case_dir):
            shutil.rmtree(case_dir)
        tf_oracle.write_case(
            case_dir, full, graph_def, fetches=fetches, feeds=ctx.feeds,
            targets=[t.name for t in spec.targets],
            init_targets=[t if isinstance(t, str) else t.name for t in spec.init],
            steps=spec.steps, note=note, run_in_scratch_dir=spec.scratch)
        code = tf_oracle.run_case(case_dir, os.path.join(case_dir, "expected"))
        self.counts[op] = self.counts.get(op, 0) + 1
        self.codes[code] = self.codes.get(code, 0) + 1

    # -- dtypes -----------------------------------------------------------

    def stepflow_types(self, op, attr):
        """Dtype names stepflow's CPU kernels accept for `attr`, or None
        when some kernel leaves it unconstrained (or op unknown)."""
        entry = self.ops.get(op)
        if entry is None:
            return None
        out = []
        for k in entry["kernels"]:
            if k["device_type"] != "CPU":
                continue
            allowed = k["constraints"].get(attr)
            if allowed is None:
                return None
            out.extend(t for t in allowed if t not in out)
        return out

    @staticmethod
    def tf_types(op, attr):
        """Dtype names TensorFlow's CPU kernels accept, or None for any."""
        out = []
        for k in tf_kernels.get_registered_kernels_for_op(op).kernel:
            if k.device_type != "CPU":
                continue
            cons = [c for c in k.constraint if c.name == attr]
            if not cons:
                return None
            for t in cons[0].allowed_values.list.type:
                d = tf.as_dtype(t)
                if d in NAME_OF and NAME_OF[d] not in out:
                    out.append(NAME_OF[d])
        return out

    @staticmethod
    def opdef_types(op, attr):
        """Dtype names TensorFlow's OpDef allows for `attr` (None: all)."""
        op_def = op_def_registry.get(op)
        for a in op_def.attr:
            if a.name == attr and a.HasField("allowed_values"):
                return [NAME_OF[tf.as_dtype(t)] for t in a.allowed_values.list.type
                        if tf.as_dtype(t) in NAME_OF]
        return None

    def types(self, op, attr="T", among=None):
        """The dtypes to cover for `op`'s type attr: what either system's
        CPU kernels accept, within the OpDef's allowed list (and `among`),
        plus up to two the OpDef allows but neither kernel set accepts (both
        systems must refuse them alike)."""
        sf = self.stepflow_types(op, attr)
        tfk = self.tf_types(op, attr)
        if sf is None and tfk is None:
            want = set(ANY_TYPES)
        else:
            want = set(sf if sf is not None else ANY_TYPES) | \
                set(tfk if tfk is not None else ANY_TYPES)
        allowed = self.opdef_types(op, attr)
        refused = [t for t in REFUSED_PRIORITY
                   if t not in want and (allowed is None or t in allowed)]
        want |= set(refused[:2])
        out = [t for t in DTYPES if t in want and (allowed is None or t in allowed)]
        if among is not None:
            out = [t for t in out if t in among]
        return out


# Golden cases beyond each family's defaults: the cases that hold stepflow
# to TensorFlow where the differential found a difference (and a fix), so
# the committed goldens keep every fix covered.
EXTRA_GOLDEN = {
    "ApplyAdam/dtype_complex64", "ApplyGradientDescent/dtype_complex128",
    "ArgMax/dtype_bool", "ArgMin/dtype_bool",
    "AssignAddVariableOp/uninitialized", "BatchMatMulV2/dtype_int16",
    "Cast/float_to_int32_out_of_range", "Cast/float_to_uint8_wraps",
    "FloorDiv/dtype_uint32", "FloorMod/dtype_int8", "Inv/dtype_int32",
    "InvGrad/special_float", "LoopCond/outside_loop",
    "MergeV2Checkpoints/missing_part", "Mod/dtype_half",
    "OneHot/indices_int8", "Range/dtype_int8", "Range/start_not_scalar",
    "Reciprocal/dtype_int32", "ReciprocalGrad/special_float",
    "Reshape/zero_size_ambiguous", "ResourceApplyGradientDescent/uninitialized",
    "ResourceApplyMomentum/dtype_complex64", "Rsqrt/special_float",
    "RsqrtGrad/special_float", "ShardedFilename/shard_not_scalar",
    "ShardedFilespec/basename_vector", "SigmoidGrad/dtype_complex64",
    "Sign/dtype_int8", "Snapshot/dtype_string", "Sqrt/special_float",
    "SqrtGrad/special_float", "Square/dtype_uint8", "Sum/duplicate_axes",
    "Sum/matrix_axis", "TanhGrad/dtype_complex64", "Tile/dtype_uint16",
    "TruncateDiv/dtype_float", "TruncateDiv/zero_divisor_int32",
    "ZerosLike/string",
}
# Family defaults left out of the goldens to keep each op at three cases or
# fewer (the extra ones above cover the op instead).
NOT_GOLDEN = {
    "ArgMax/empty_axis", "ArgMin/empty_axis", "FloorDiv/incompatible",
    "FloorMod/incompatible", "InvGrad/shape_mismatch", "Mod/incompatible",
    "ReciprocalGrad/shape_mismatch", "RsqrtGrad/shape_mismatch",
    "SigmoidGrad/shape_mismatch", "SqrtGrad/shape_mismatch",
    "Sum/axis_out_of_range", "Sum/grad_float", "TanhGrad/shape_mismatch",
    "TruncateDiv/incompatible", "Sqrt/grad_float", "Rsqrt/grad_float",
    "Inv/grad_float", "Reciprocal/grad_float",
}


# ---------------------------------------------------------------------------
# Op families.

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


def unary(g, op, fn=None):
    kind, differentiable = UNARY[op]
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
DIVISIONS = ("Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv")


def binary(g, op):
    ykind = BINARY[op]
    raw_f = getattr(raw, op)

    def f(x, y, **attrs):
        return raw_f(x=x, y=y, **attrs)
    xkind = "pos" if op == "Pow" else "any"
    types = ["bool"] if op.startswith("Logical") else g.types(op)
    first = "bool" if op.startswith("Logical") else "float"

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
        it = "int32" if op != "Mod" else "int64"
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
        if op in ("FloorMod", "Mod", "FloorDiv") and "float" in types:
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
    if op in BINARY_GRAD:
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


def cumsum(g):
    op = "Cumsum"
    f = raw.Cumsum

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


def string_join(g):
    op = "StringJoin"

    def sj(c, shapes, sep=""):
        return raw.StringJoin(inputs=[c.input(tf.string, s, name="s%d" % i)
                                      for i, s in enumerate(shapes)], separator=sep)

    g.add(op, "two_vectors", lambda c: sj(c, [[3], [3]]), golden=True)
    g.add(op, "separator", lambda c: sj(c, [[2, 2], [2, 2], [2, 2]], ", "))
    g.add(op, "scalar_broadcast", lambda c: sj(c, [[], [3]], "-"), golden=True)
    g.add(op, "n1", lambda c: sj(c, [[2]]))
    g.add(op, "all_scalars", lambda c: sj(c, [[], []], "/"))
    g.add(op, "mismatch", lambda c: sj(c, [[2], [3]]))
    g.add(op, "empty", lambda c: sj(c, [[0], [0]]))


def like(g, op):
    f = getattr(raw, op)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: f(x=c.input(DTYPES[t], [2, 3], name="x")),
              golden=(t == "float"))
    g.add(op, "scalar", lambda c: f(x=c.input(tf.int32, [], name="x")))
    g.add(op, "empty", lambda c: f(x=c.input(tf.float32, [0, 3], name="x")))
    if op == "ZerosLike":
        g.add(op, "string", lambda c: f(x=c.input(tf.string, [2], name="x")))


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


def cwise_grad(g, op):
    a, b, ka, kb = CWISE_GRADS[op]
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
    g.add(op, "second_order",
          lambda c: (lambda x, y, z: grads(c, [z], [x, y]))(
              *cg(c, "float", [2, 3], [2, 3], static=True)))


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


def no_op_and_trigger(g):
    op = "NoOp"

    g.add(op, "target", lambda c: Spec(targets=[tf.no_op(name="nop")]), golden=True)

    def noop_then_read(c):
        v = raw.VariableV2(shape=[], dtype=tf.float32, name="v")
        init = raw.Assign(ref=v, value=tf.constant(1.0))
        with tf.control_dependencies([raw.AssignAdd(ref=v, value=tf.constant(2.0))]):
            n = tf.no_op(name="step")
        with tf.control_dependencies([n]):
            r = tf.identity(v)
        return Spec(fetches=[r], init=[init.op], steps=2)
    g.add(op, "control_dependency", noop_then_read)

    op = "ControlTrigger"

    def trigger(c):
        x = c.input(tf.float32, [2], name="x")
        t = raw.ControlTrigger(name="trigger")
        with tf.control_dependencies([t]):
            y = tf.identity(x)
        return [y]
    g.add(op, "control_input", trigger, golden=True)
    g.add(op, "target", lambda c: Spec(targets=[raw.ControlTrigger()]))


# -- Variables ---------------------------------------------------------------


def ref_var(c, value, dtype=None, name="v", op="VariableV2"):
    """A ref variable (`op`: VariableV2 or the older Variable) and the
    Assign that initializes it."""
    value = np.asarray(value) if dtype is None else np.asarray(value, np_type(dtype))
    dtype = dtype or tf.as_dtype(value.dtype)
    v = getattr(raw, op)(shape=value.shape, dtype=dtype, name=name)
    init = raw.Assign(ref=v, value=tf.constant(value, dtype=dtype), name=name + "_init")
    return v, init


def ref_variables(g):
    for op in ("VariableV2", "Variable"):
        for t in ("float", "int32", "string", "bool", "half", "complex64"):
            g.add(op, "dtype_" + t,
                  lambda c, t=t, op=op: (lambda v, i: Spec(fetches=[v], init=[i.op]))(
                      *ref_var(c, c.rand(DTYPES[t], [2, 3]), DTYPES[t], op=op)),
                  golden=(t == "float"))
        g.add(op, "uninitialized",
              lambda c, op=op: [getattr(raw, op)(shape=[2], dtype=tf.float32, name="v")],
              golden=True)

        def shared(c, op=op):
            a = getattr(raw, op)(shape=[2], dtype=tf.float32, shared_name="s", name="a")
            b = getattr(raw, op)(shape=[2], dtype=tf.float32, shared_name="s", name="b")
            init = raw.Assign(ref=a, value=tf.constant([1.0, 2.0]))
            return Spec(fetches=[b], init=[init.op])
        g.add(op, "shared_name", shared, note="two nodes with one shared_name share storage")
        g.add(op, "scalar",
              lambda c, op=op: (lambda v, i: Spec(fetches=[v], init=[i.op]))(
                  *ref_var(c, np.float32(2.5), op=op)))

    op = "Assign"

    def assign(c, t, init_shape, value_shape, validate=True, initialize=True):
        d = DTYPES[t]
        v, i = ref_var(c, c.rand(d, init_shape), d)
        a = raw.Assign(ref=v, value=c.input(d, value_shape, name="value"),
                       validate_shape=validate)
        return Spec(fetches=[a], init=[i.op] if initialize else [])

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: assign(c, t, [2, 3], [2, 3]),
              golden=(t == "float"))
    g.add(op, "shape_mismatch", lambda c: assign(c, "float", [2, 3], [3]), golden=True)
    g.add(op, "no_validate_shape", lambda c: assign(c, "float", [2, 3], [4], validate=False))
    g.add(op, "initializes", lambda c: assign(c, "float", [2], [2], initialize=False))
    # Not generated: the first Assign of an uninitialized variable with a
    # shape other than VariableV2's declared one (known_differences.txt,
    # comments: stepflow runs it, TensorFlow refuses).

    def read_after(c):
        v, i = ref_var(c, np.zeros([2], np.float32))
        a = raw.Assign(ref=v, value=c.input(tf.float32, [2], name="value"), use_locking=False)
        with tf.control_dependencies([a]):
            r = tf.identity(v)
        return Spec(fetches=[r], init=[i.op])
    g.add(op, "read_after", read_after)

    for op, f in (("AssignAdd", raw.AssignAdd), ("AssignSub", raw.AssignSub)):
        def upd(c, t, shape, vshape, initialize=True, f=f):
            d = DTYPES[t]
            v, i = ref_var(c, c.rand(d, shape), d)
            u = f(ref=v, value=c.input(d, vshape, name="value"))
            return Spec(fetches=[u], init=[i.op] if initialize else [], steps=2)
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, upd=upd: upd(c, t, [2, 3], [2, 3]),
                  golden=(t == "float"))
        g.add(op, "shape_mismatch", lambda c, upd=upd: upd(c, "float", [2, 3], [3]),
              golden=True)
        g.add(op, "uninitialized",
              lambda c, upd=upd: upd(c, "float", [2], [2], initialize=False))
        g.add(op, "scalar", lambda c, upd=upd: upd(c, "int32", [], []))

    op = "IsVariableInitialized"
    for init in (False, True):
        g.add(op, "initialized_%d" % init,
              lambda c, init=init: (lambda v, i: Spec(
                  fetches=[raw.IsVariableInitialized(ref=v)], init=[i.op] if init else []))(
                  *ref_var(c, np.ones([2], np.float32))),
              golden=True)
    g.add(op, "int32",
          lambda c: (lambda v, i: Spec(fetches=[raw.IsVariableInitialized(ref=v)],
                                       init=[i.op]))(*ref_var(c, np.ones([2], np.int32))))


def resource_variables(g):
    def handle(c, t, shape, name="h", shared="v"):
        return raw.VarHandleOp(dtype=DTYPES[t], shape=shape, shared_name=shared, name=name)

    def var(c, t, shape, value=None):
        h = handle(c, t, shape)
        value = c.rand(DTYPES[t], shape) if value is None else value
        init = raw.AssignVariableOp(resource=h, value=tf.constant(value, dtype=DTYPES[t]))
        return h, init

    op = "VarHandleOp"
    g.add(op, "read_back",
          lambda c: (lambda h, i: Spec(fetches=[raw.ReadVariableOp(resource=h, dtype=tf.float32)],
                                       init=[i]))(*var(c, "float", [2, 3])),
          golden=True)

    def two_handles(c):
        a = handle(c, "float", [2], name="a", shared="same")
        b = handle(c, "float", [2], name="b", shared="same")
        i = raw.AssignVariableOp(resource=a, value=tf.constant([1.0, 2.0]))
        return Spec(fetches=[raw.ReadVariableOp(resource=b, dtype=tf.float32)], init=[i])
    g.add(op, "shared_name", two_handles)

    def v1_variable(c):
        v = v1.Variable(c.rand(tf.float32, [2, 3]), use_resource=True, name="rv")
        return Spec(fetches=[v.read_value()], init=[v.initializer])
    g.add(op, "compat_v1_variable", v1_variable, golden=True)

    op = "ReadVariableOp"
    for t in ("float", "double", "int32", "int64", "bool", "string", "half", "bfloat16",
              "complex64"):
        g.add(op, "dtype_" + t,
              lambda c, t=t: (lambda h, i: Spec(
                  fetches=[raw.ReadVariableOp(resource=h, dtype=DTYPES[t])], init=[i]))(
                  *var(c, t, [2, 3])),
              golden=(t == "float"))
    g.add(op, "uninitialized",
          lambda c: [raw.ReadVariableOp(resource=handle(c, "float", [2]), dtype=tf.float32)],
          golden=True)
    g.add(op, "wrong_dtype",
          lambda c: (lambda h, i: Spec(
              fetches=[raw.ReadVariableOp(resource=h, dtype=tf.float32, name="read")],
              init=[i], edit=set_attr("read", "dtype", tf.int32)))(*var(c, "float", [2])),
          note="reading a float variable as int32 (set in the GraphDef)")

    op = "AssignVariableOp"

    def assign(c, t, shape, vshape, vt=None, validate=False):
        h = handle(c, t, shape)
        a = raw.AssignVariableOp(resource=h, value=c.input(DTYPES[t], vshape, name="x"),
                                 validate_shape=validate, name="assign")
        spec = Spec(fetches=[raw.ReadVariableOp(resource=h, dtype=DTYPES[t])], init=[a])
        if vt is not None:
            # A value of another dtype (Python's shape inference rejects it).
            value = c.rand(DTYPES[vt], vshape)
            c.feeds["x:0"] = value

            def edit(gd):
                set_attr("x", "dtype", DTYPES[vt])(gd)
                set_attr("assign", "dtype", DTYPES[vt])(gd)
            spec.edit = edit
        return spec

    for t in g.types(op, "dtype"):
        g.add(op, "dtype_" + t, lambda c, t=t: assign(c, t, [2, 3], [2, 3]),
              golden=(t == "float"))
    g.add(op, "wrong_dtype", lambda c: assign(c, "float", [2], [2], vt="int32"), golden=True)
    g.add(op, "other_shape", lambda c: assign(c, "float", [2], [3]))
    g.add(op, "validate_shape", lambda c: assign(c, "float", [2], [3], validate=True))

    def reassign_shape(c):
        h, i = var(c, "float", [2])
        a = raw.AssignVariableOp(resource=h, value=c.input(tf.float32, [3], name="x"))
        return Spec(fetches=[raw.ReadVariableOp(resource=h, dtype=tf.float32)], init=[i, a])
    g.add(op, "reassign_other_shape", reassign_shape)

    for op, f in (("AssignAddVariableOp", raw.AssignAddVariableOp),
                  ("AssignSubVariableOp", raw.AssignSubVariableOp)):
        def upd(c, t, shape, vshape, initialize=True, f=f):
            h = handle(c, t, shape)
            i = raw.AssignVariableOp(resource=h, value=tf.constant(c.rand(DTYPES[t], shape),
                                                                   dtype=DTYPES[t]))
            u = f(resource=h, value=c.input(DTYPES[t], vshape, name="x"))
            with tf.control_dependencies([u]):
                r = raw.ReadVariableOp(resource=h, dtype=DTYPES[t])
            return Spec(fetches=[r], init=[i] if initialize else [], steps=2)
        for t in g.types(op, "dtype"):
            g.add(op, "dtype_" + t, lambda c, t=t, upd=upd: upd(c, t, [2, 3], [2, 3]),
                  golden=(t == "float"))
        g.add(op, "shape_mismatch", lambda c, upd=upd: upd(c, "float", [2, 3], [3]),
              golden=True)
        g.add(op, "uninitialized", lambda c, upd=upd: upd(c, "float", [2], [2], False))
        g.add(op, "scalar", lambda c, upd=upd: upd(c, "int64", [], []))

    op = "VarIsInitializedOp"
    for init in (False, True):
        g.add(op, "initialized_%d" % init,
              lambda c, init=init: (lambda h, i: Spec(
                  fetches=[raw.VarIsInitializedOp(resource=h)], init=[i] if init else []))(
                  *var(c, "float", [2])),
              golden=True)

    op = "DestroyResourceOp"

    def destroy(c, initialize, ignore, read):
        h, i = var(c, "float", [2])
        d = raw.DestroyResourceOp(resource=h, ignore_lookup_error=ignore, name="destroy")
        init = ([i] if initialize else []) + [d]
        if read:
            return Spec(fetches=[raw.ReadVariableOp(resource=h, dtype=tf.float32)], init=init)
        return Spec(fetches=[raw.VarIsInitializedOp(resource=h)], init=init)
    g.add(op, "then_read", lambda c: destroy(c, True, False, True), golden=True)
    g.add(op, "then_is_initialized", lambda c: destroy(c, True, False, False), golden=True)
    g.add(op, "missing_ignored", lambda c: destroy(c, False, True, False))
    g.add(op, "missing", lambda c: destroy(c, False, False, False))


def training(g):
    """ApplyGradientDescent, ApplyMomentum, ApplyAdam and their resource
    forms: raw, and as the v1 optimizers build them."""
    for resource in (False, True):
        prefix = "Resource" if resource else ""

        def slots(c, t, shape, n, resource=resource):
            out, inits = [], []
            for k in range(n):
                value = c.rand(DTYPES[t], shape, "pos" if k else "any")
                if resource:
                    h = raw.VarHandleOp(dtype=DTYPES[t], shape=shape, shared_name="s%d" % k,
                                        name="var%d" % k)
                    inits.append(raw.AssignVariableOp(
                        resource=h, value=tf.constant(value, dtype=DTYPES[t])))
                    out.append(h)
                else:
                    v, i = ref_var(c, value, DTYPES[t], name="var%d" % k)
                    out.append(v)
                    inits.append(i.op)
            return out, inits

        def read(v, t, resource=resource):
            return raw.ReadVariableOp(resource=v, dtype=DTYPES[t]) if resource else \
                tf.identity(v)

        def scalars(c, t, values):
            return [c.feed(np.asarray(x, np_type(DTYPES[t])), name="s%d" % k)
                    for k, x in enumerate(values)]

        def run_update(c, t, update, vs, inits, resource=resource):
            if resource:
                with tf.control_dependencies([update]):
                    rs = [read(v, t) for v in vs]
                return Spec(fetches=rs, init=inits, steps=2)
            with tf.control_dependencies([update]):
                rs = [tf.identity(v) for v in vs]
            return Spec(fetches=[update] + rs, init=inits, steps=2)

        op = prefix + "ApplyGradientDescent"
        f = getattr(raw, op)

        def gd(c, t, shape=(2, 3), dshape=None, alpha=0.5, f=f, initialize=True):
            (v,), inits = slots(c, t, list(shape), 1)
            u = f(var=v, alpha=scalars(c, t, [alpha])[0],
                  delta=c.input(DTYPES[t], dshape or list(shape), name="delta"))
            return run_update(c, t, u, [v], inits if initialize else [])
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, gd=gd: gd(c, t), golden=(t == "float"))
        g.add(op, "shape_mismatch", lambda c, gd=gd: gd(c, "float", dshape=[3]), golden=True)
        g.add(op, "alpha_not_scalar", lambda c, gd=gd: gd(c, "float", alpha=[0.5, 0.5]))
        g.add(op, "uninitialized", lambda c, gd=gd: gd(c, "float", initialize=False))

        op = prefix + "ApplyMomentum"
        f = getattr(raw, op)

        def mom(c, t, nesterov=False, gshape=None, f=f):
            (v, acc), inits = slots(c, t, [2, 3], 2)
            lr, m = scalars(c, t, [0.25, 0.875])
            u = f(var=v, accum=acc, lr=lr, grad=c.input(DTYPES[t], gshape or [2, 3], name="g"),
                  momentum=m, use_nesterov=nesterov)
            return run_update(c, t, u, [v, acc], inits)
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, mom=mom: mom(c, t), golden=(t == "float"))
        g.add(op, "nesterov", lambda c, mom=mom: mom(c, "float", True), golden=True)
        g.add(op, "shape_mismatch", lambda c, mom=mom: mom(c, "float", gshape=[3, 2]))

        op = prefix + "ApplyAdam"
        f = getattr(raw, op)

        def adam(c, t, nesterov=False, gshape=None, f=f):
            (v, m, s), inits = slots(c, t, [2, 3], 3)
            b1p, b2p, lr, b1, b2, eps = scalars(c, t, [0.5, 0.75, 0.125, 0.5, 0.75, 1e-3])
            u = f(var=v, m=m, v=s, beta1_power=b1p, beta2_power=b2p, lr=lr, beta1=b1,
                  beta2=b2, epsilon=eps, grad=c.input(DTYPES[t], gshape or [2, 3], name="g"),
                  use_nesterov=nesterov)
            return run_update(c, t, u, [v, m, s], inits)
        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, adam=adam: adam(c, t),
                  golden=(t == "float"))
        g.add(op, "nesterov", lambda c, adam=adam: adam(c, "float", True), golden=True)
        g.add(op, "shape_mismatch", lambda c, adam=adam: adam(c, "float", gshape=[3]))

        # The v1 optimizers, minimizing a small least-squares loss.
        for name, make in (
                ("ApplyGradientDescent", lambda: v1.train.GradientDescentOptimizer(0.1)),
                ("ApplyMomentum", lambda: v1.train.MomentumOptimizer(0.1, 0.9)),
                ("ApplyAdam", lambda: v1.train.AdamOptimizer(0.1))):
            def optimizer(c, make=make, resource=resource):
                x = tf.constant(c.rand(tf.float32, [4, 3]))
                y = tf.constant(c.rand(tf.float32, [4, 1]))
                w = v1.Variable(c.rand(tf.float32, [3, 1]), use_resource=resource, name="w")
                b = v1.Variable(np.zeros([1], np.float32), use_resource=resource, name="b")
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                train = make().minimize(loss)
                init = v1.global_variables_initializer()
                return Spec(fetches=[loss], targets=[train], init=[init], steps=3)
            g.add(prefix + name, "optimizer", optimizer, golden=True,
                  note="as tf.compat.v1.train builds it, with its gradients")


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


# -- Control flow --------------------------------------------------------------


def control_flow(g):
    op = "Switch"

    def switch(c, pred, fetch_true=True, t=tf.float32):
        x = c.input(t, [2, 3], name="x")
        p = c.feed(np.array(pred), name="pred")
        f, tr = raw.Switch(data=x, pred=p)
        return [tr if fetch_true else f]
    g.add(op, "taken_branch", lambda c: switch(c, True, True), golden=True)
    g.add(op, "dead_branch", lambda c: switch(c, True, False), golden=True,
          note="fetching the output Switch did not take")
    g.add(op, "false_branch", lambda c: switch(c, False, False))
    for t in ("int32", "string", "bool"):
        g.add(op, "dtype_" + t, lambda c, t=t: switch(c, False, False, DTYPES[t]))
    g.add(op, "pred_not_scalar",
          lambda c: list(raw.Switch(data=c.input(tf.float32, [2]),
                                    pred=c.feed(np.array([True, False]), name="pred"))))

    def cond(c, pred, t=tf.float32):
        x = c.input(t, [2, 3], name="x")
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: x * tf.constant(2, t), lambda: x + tf.constant(1, t))
        return [r, r.op.outputs[1]]

    op = "Merge"
    for pred in (True, False):
        g.add(op, "cond_%s" % str(pred).lower(), lambda c, pred=pred: cond(c, pred),
              golden=True, note="tf.compat.v1.cond: Switch, branches, Merge")
    g.add(op, "cond_int32", lambda c: cond(c, True, tf.int32))

    def merge_one(c):
        m = raw.Merge(inputs=[c.input(tf.float32, [2], name="x")])
        return list(m)
    g.add(op, "single_input", merge_one)

    def cond_grad(c, pred):
        x = c.input(tf.float32, [2, 3], name="x", static=True)
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: tf.tanh(x), lambda: x * x)
        return grads(c, [r], [x])
    g.add(op, "cond_grad", lambda c: cond_grad(c, False), golden=True)
    g.add("Switch", "cond_grad", lambda c: cond_grad(c, True))

    def nested_cond(c, a, b):
        x = c.input(tf.float32, [3], name="x")
        pa = c.feed(np.array(a), name="pa")
        pb = c.feed(np.array(b), name="pb")
        r = v1.cond(pa, lambda: v1.cond(pb, lambda: x + 1, lambda: x - 1), lambda: x * 3)
        return [r]
    g.add(op, "nested_cond", lambda c: nested_cond(c, True, False))

    def loop(c, n, parallel=10):
        x = c.input(tf.float32, [2], name="x")
        limit = c.feed(np.array(n, np.int32), name="n")
        i, y = v1.while_loop(lambda i, y: i < limit,
                             lambda i, y: (i + 1, y * 1.5 + tf.cast(i, tf.float32)),
                             [tf.constant(0), x], parallel_iterations=parallel)
        return [i, y]
    for op in ("Enter", "Exit", "NextIteration", "LoopCond"):
        g.add(op, "while_5", lambda c: loop(c, 5), golden=True,
              note="tf.compat.v1.while_loop: Enter, Merge, LoopCond, Switch, NextIteration, Exit")
        g.add(op, "while_0", lambda c: loop(c, 0))
    g.add("Enter", "parallel_iterations_1", lambda c: loop(c, 4, parallel=1))

    def nested_loop(c):
        n = c.feed(np.array(3, np.int32), name="n")

        def outer(i, acc):
            _, inner = v1.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j),
                                     [tf.constant(0), acc])
            return i + 1, inner
        return list(v1.while_loop(lambda i, acc: i < n, outer, [tf.constant(0), tf.constant(0)]))
    g.add("NextIteration", "nested", nested_loop, golden=True)

    def loop_with_cond(c):
        n = c.feed(np.array(6, np.int32), name="n")
        return list(v1.while_loop(
            lambda i, s: i < n,
            lambda i, s: (i + 1, v1.cond(tf.equal(i % 2, 0), lambda: s + i, lambda: s - 1)),
            [tf.constant(0), tf.constant(0)]))
    g.add("LoopCond", "with_cond", loop_with_cond)

    def loop_invariant(c):
        x = c.input(tf.float32, [3], name="x")
        w = c.input(tf.float32, [3], name="w")
        return [v1.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w),
                              [tf.constant(0), x])[1]]
    g.add("Enter", "loop_invariant", loop_invariant,
          note="a tensor from outside the loop enters as a constant")

    def loop_cond_not_scalar(c):
        p = c.feed(np.array([True]), name="p")
        return [raw.LoopCond(input=p)]
    g.add("LoopCond", "outside_loop", loop_cond_not_scalar)

    # Ref forms: a ref variable used inside a cond and a while loop.
    def ref_cond(c, pred):
        v, i = ref_var(c, np.array([1.0, 2.0], np.float32))
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: v1.assign_add(v, [10.0, 10.0]), lambda: tf.identity(v))
        return Spec(fetches=[r], init=[i.op])
    g.add("RefSwitch", "cond_assign_true", lambda c: ref_cond(c, True), golden=True,
          note="a ref variable captured by tf.compat.v1.cond enters through RefSwitch")
    g.add("RefSwitch", "cond_assign_false", lambda c: ref_cond(c, False))

    def ref_switch_raw(c, pred):
        v, i = ref_var(c, np.array([1.0, 2.0], np.float32))
        p = c.feed(np.array(pred), name="pred")
        f, t = raw.RefSwitch(data=v, pred=p)
        m = raw.RefMerge(inputs=[f, t])
        return Spec(fetches=[tf.identity(m.output), m.value_index], init=[i.op])
    g.add("RefMerge", "switch_merge_true", lambda c: ref_switch_raw(c, True), golden=True)
    g.add("RefMerge", "switch_merge_false", lambda c: ref_switch_raw(c, False))
    g.add("RefSwitch", "raw_merge", lambda c: ref_switch_raw(c, False))

    def ref_loop(c):
        v, i = ref_var(c, np.array([0.0, 1.0], np.float32))
        n = c.feed(np.array(4, np.int32), name="n")

        def body(k, s):
            with tf.control_dependencies([v1.assign_add(v, [1.0, 2.0])]):
                return k + 1, s + 1
        out = v1.while_loop(lambda k, s: k < n, body, [tf.constant(0), tf.constant(0)])
        with tf.control_dependencies(out):
            r = tf.identity(v)
        return Spec(fetches=[r] + list(out), init=[i.op])
    g.add("RefEnter", "loop_assign", ref_loop, golden=True,
          note="a ref variable assigned in a while loop enters through RefEnter")

    def ref_frame(c, n):
        """A hand-built loop whose loop variable is a ref: RefEnter,
        RefMerge, RefSwitch, RefNextIteration, RefExit."""
        v, i = ref_var(c, np.array([3.0, 4.0], np.float32))
        c.feed(np.array(n, np.int32), name="n")

        def edit(gd):
            fr = dict(frame_name="ref_frame", is_constant=False, parallel_iterations=1)
            add_node(gd, "r_enter", "RefEnter", ["v"], T=tf.float32, **fr)
            add_node(gd, "c_init", "Const", dtype=tf.int32, value=np.array(0, np.int32))
            add_node(gd, "c_enter", "Enter", ["c_init"], T=tf.int32, **fr)
            add_node(gd, "n_enter", "Enter", ["n"], T=tf.int32, frame_name="ref_frame",
                     is_constant=True, parallel_iterations=1)
            add_node(gd, "r_merge", "RefMerge", ["r_enter", "r_next"], T=tf.float32, N=2)
            add_node(gd, "c_merge", "Merge", ["c_enter", "c_next"], T=tf.int32, N=2)
            add_node(gd, "less", "Less", ["c_merge", "n_enter"], T=tf.int32)
            add_node(gd, "cond", "LoopCond", ["less"])
            add_node(gd, "r_switch", "RefSwitch", ["r_merge", "cond"], T=tf.float32)
            add_node(gd, "c_switch", "Switch", ["c_merge", "cond"], T=tf.int32)
            add_node(gd, "one", "Const", ["^c_switch:1"], dtype=tf.int32,
                     value=np.array(1, np.int32))
            add_node(gd, "c_add", "Add", ["c_switch:1", "one"], T=tf.int32)
            add_node(gd, "r_next", "RefNextIteration", ["r_switch:1"], T=tf.float32)
            add_node(gd, "c_next", "NextIteration", ["c_add"], T=tf.int32)
            add_node(gd, "r_exit", "RefExit", ["r_switch"], T=tf.float32)
            add_node(gd, "c_exit", "Exit", ["c_switch"], T=tf.int32)
            add_node(gd, "r_out", "Identity", ["r_exit"], T=tf.float32)
        return Spec(init=[i.op], edit=edit, extra_fetch_names=["r_out:0", "c_exit:0"])
    for op in ("RefEnter", "RefMerge", "RefNextIteration", "RefExit"):
        g.add(op, "ref_loop_3", lambda c: ref_frame(c, 3), golden=True,
              note="a hand-built loop over a ref")
        g.add(op, "ref_loop_0", lambda c: ref_frame(c, 0))


# -- Checkpoints ---------------------------------------------------------------


def checkpoints(g):
    def saver_case(c, sharded):
        a = v1.Variable(c.rand(tf.float32, [2, 3]), use_resource=False, name="a")
        b = v1.Variable(c.rand(tf.int32, [4]), use_resource=True, name="b")
        s = v1.Variable(np.array([b"x", b"yz"], object), use_resource=False, name="s",
                        dtype=tf.string)
        saver = v1.train.Saver([a, b, s], sharded=sharded)
        init = v1.global_variables_initializer()
        clobber = tf.group(v1.assign(a, tf.zeros([2, 3])), b.assign(tf.zeros([4], tf.int32)),
                           v1.assign(s, tf.constant([b"", b""])), name="clobber")
        sd = saver.saver_def
        save = sd.save_tensor_name.split(":")[0]
        return Spec(fetches=[a.read_value(), b.read_value(), s.read_value()],
                    init=[init.name, save, clobber.name, sd.restore_op_name], scratch=True)
    for op in ("SaveV2", "RestoreV2"):
        g.add(op, "saver", lambda c: saver_case(c, False), golden=True,
              note="tf.compat.v1.train.Saver: save, clobber, restore")
    for op in ("MergeV2Checkpoints", "ShardedFilename", "StringJoin"):
        g.add(op, "sharded_saver", lambda c: saver_case(c, True),
              note="a sharded tf.compat.v1.train.Saver")

    def save_restore(c, names, values, restore_names, dtypes, slices=None, prefix="ckpt",
                     restore_prefix="ckpt"):
        tensors = [tf.constant(v) for v in values]
        save = raw.SaveV2(prefix=tf.constant(prefix), tensor_names=tf.constant(names),
                          shape_and_slices=tf.constant([""] * len(names)), tensors=tensors,
                          name="save")
        names_fed = np.array([n.encode() for n in restore_names], object)
        restored = raw.RestoreV2(prefix=tf.constant(restore_prefix),
                                 tensor_names=c.feed(names_fed, name="restore_names"),
                                 shape_and_slices=c.feed(np.array(
                                     [s.encode() for s in slices or [""] * len(restore_names)],
                                     object), name="restore_slices"),
                                 dtypes=dtypes, name="restore")
        return Spec(fetches=list(restored), init=[save], scratch=True)

    g.add("SaveV2", "dtypes",
          lambda c: save_restore(
              c, ["f", "d", "i", "s", "h", "b", "c", "u"],
              [c.rand(DTYPES[t], [2, 2]) for t in ("float", "double", "int64", "string")] +
              [c.rand(tf.float16, [3]), c.rand(tf.bool, [2]), c.rand(tf.complex64, [2]),
               c.rand(tf.uint8, [])],
              ["u", "s", "f"], [tf.uint8, tf.string, tf.float32]))
    g.add("SaveV2", "count_mismatch",
          lambda c: Spec(targets=[raw.SaveV2(prefix=tf.constant("ckpt"),
                                             tensor_names=c.feed(np.array([b"a", b"b"],
                                                                          object)),
                                             shape_and_slices=c.feed(np.array([b"", b""],
                                                                              object)),
                                             tensors=[tf.constant(1.0)])], scratch=True),
          golden=True)
    g.add("RestoreV2", "missing_name",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["b"], [tf.float32]),
          golden=True)
    g.add("RestoreV2", "wrong_dtype",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a"], [tf.int32]))
    g.add("RestoreV2", "missing_checkpoint",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a"], [tf.float32],
                                 restore_prefix="other"))
    g.add("RestoreV2", "slice",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.float32).reshape(3, 4)],
                                 ["a"], [tf.float32], slices=["3 4 1,2:-"]),
          note="a shape-and-slice spec: rows 1..2, all columns")
    g.add("RestoreV2", "slice_of_wrong_shape",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.float32).reshape(3, 4)],
                                 ["a"], [tf.float32], slices=["4 4 1,2:-"]))
    g.add("RestoreV2", "slice_columns",
          lambda c: save_restore(c, ["a"], [np.arange(12, dtype=np.int64).reshape(3, 4)],
                                 ["a"], [tf.int64], slices=["3 4 -:1,2"]),
          golden=True)
    g.add("RestoreV2", "count_mismatch",
          lambda c: save_restore(c, ["a"], [np.float32(1)], ["a", "a"], [tf.float32]))

    def merge(c, delete):
        s1 = raw.SaveV2(prefix=tf.constant("part1"), tensor_names=tf.constant(["a"]),
                        shape_and_slices=tf.constant([""]), tensors=[tf.constant([1.0, 2.0])])
        s2 = raw.SaveV2(prefix=tf.constant("part2"), tensor_names=tf.constant(["b"]),
                        shape_and_slices=tf.constant([""]), tensors=[tf.constant([3, 4])])
        m = raw.MergeV2Checkpoints(checkpoint_prefixes=tf.constant(["part1", "part2"]),
                                   destination_prefix=tf.constant("merged"),
                                   delete_old_dirs=delete)
        r = raw.RestoreV2(prefix=tf.constant("merged"), tensor_names=tf.constant(["b", "a"]),
                          shape_and_slices=tf.constant(["", ""]),
                          dtypes=[tf.int32, tf.float32])
        return Spec(fetches=list(r), init=[s1, s2, m], scratch=True)
    g.add("MergeV2Checkpoints", "two_parts", lambda c: merge(c, True), golden=True)
    g.add("MergeV2Checkpoints", "keep_dirs", lambda c: merge(c, False))

    def merge_missing(c):
        m = raw.MergeV2Checkpoints(checkpoint_prefixes=tf.constant(["nothing"]),
                                   destination_prefix=tf.constant("merged"))
        return Spec(targets=[m], scratch=True)
    g.add("MergeV2Checkpoints", "missing_part", merge_missing)

    op = "ShardedFilename"

    def sharded_filename(c, shard, num):
        return raw.ShardedFilename(basename=c.feed(np.array(b"dir/model", object), name="base"),
                                   shard=c.feed(np.array(shard, np.int32), name="shard"),
                                   num_shards=c.feed(np.array(num, np.int32), name="num"))
    g.add(op, "first", lambda c: sharded_filename(c, 0, 3), golden=True)
    g.add(op, "large", lambda c: sharded_filename(c, 12345, 99999))
    g.add(op, "shard_out_of_range", lambda c: sharded_filename(c, 3, 3))
    g.add(op, "shard_not_scalar", lambda c: sharded_filename(c, [0], 3))

    op = "ShardedFilespec"

    def spec(c, num):
        return raw.ShardedFilespec(basename=c.feed(np.array(b"model", object), name="base"),
                                   num_shards=c.feed(np.array(num, np.int32), name="num"))
    g.add(op, "three", lambda c: spec(c, 3), golden=True)
    g.add(op, "one", lambda c: spec(c, 1))
    g.add(op, "wide", lambda c: spec(c, 123456))
    g.add(op, "basename_vector",
          lambda c: raw.ShardedFilespec(
              basename=c.feed(np.array([b"model"], object), name="base"),
              num_shards=c.feed(np.array(2, np.int32), name="num")))


# -- Send/Recv and function-call plumbing -------------------------------------


def internal(g):
    pairs = (("_Send", "_Recv"), ("_HostSend", "_HostRecv"))
    for send, recv in pairs:
        def sendrecv(c, t, client_terminated, send=send, recv=recv):
            c.input(DTYPES[t], [2, 3], name="x")

            def edit(gd):
                common = dict(tensor_name="edge_x", send_device=CPU0,
                              send_device_incarnation=1, recv_device=CPU0,
                              client_terminated=client_terminated)
                add_node(gd, "send", send, ["x"], T=DTYPES[t], **common)
                add_node(gd, "recv", recv, ["^send"], tensor_type=DTYPES[t], **common)
            return Spec(edit=edit, extra_fetch_names=["recv:0"])
        for op in (send, recv):
            for t in ("float", "int32", "string"):
                g.add(op, "pair_" + t, lambda c, t=t, s=sendrecv: s(c, t, False),
                      golden=(t == "float"), note="a matched pair in one graph")
            g.add(op, "client_terminated", lambda c, s=sendrecv: s(c, "float", True))

    def arg(c, index, t=tf.float32):
        c.input(tf.float32, [2], name="x")

        def edit(gd):
            add_node(gd, "arg", "_Arg", T=t, index=index)
        return Spec(edit=edit, extra_fetch_names=["arg:0"])
    g.add("_Arg", "index0", lambda c: arg(c, 0), golden=True)
    g.add("_Arg", "index_out_of_range", lambda c: arg(c, 5))
    g.add("_Arg", "dtype_mismatch", lambda c: arg(c, 0, tf.int32))

    def retval(c, index):
        y = tf.identity(c.input(tf.float32, [2], name="x"), name="y")

        def edit(gd):
            add_node(gd, "ret", "_Retval", ["y"], T=tf.float32, index=index)
        return Spec(fetches=[y], edit=edit)
    g.add("_Retval", "index0", lambda c: retval(c, 0), golden=True)
    g.add("_Retval", "index_out_of_range", lambda c: retval(c, 5))


# ---------------------------------------------------------------------------


def generate(g):
    """Every family, for the ops it covers."""
    for op in UNARY:
        unary(g, op)
    for op in BINARY:
        binary(g, op)
    g.add("LogicalNot", "bool", lambda c: raw.LogicalNot(x=c.input(tf.bool, [2, 3])),
          golden=True)
    g.add("LogicalNot", "scalar", lambda c: raw.LogicalNot(x=c.input(tf.bool, [])))
    g.add("LogicalNot", "empty", lambda c: raw.LogicalNot(x=c.input(tf.bool, [0])))
    for op in REDUCTIONS:
        reduction(g, op)
    for op in ("ArgMax", "ArgMin"):
        argminmax(g, op)
    matmul(g)
    batch_matmul(g, "BatchMatMul")
    batch_matmul(g, "BatchMatMulV2")
    bias_add(g)
    bias_add_grad(g)
    l2loss(g)
    softmax(g, "Softmax")
    softmax(g, "LogSoftmax")
    softmax_xent(g)
    sparse_xent(g)
    cumsum(g)
    cast(g)
    for op in ("Identity", "Snapshot", "StopGradient", "PreventGradient"):
        identity_like(g, op)
    identity_n(g)
    shape_ops(g)
    reshape(g)
    expand_dims(g)
    squeeze(g)
    transpose(g)
    concat(g)
    pack_unpack(g)
    split(g)
    slice_op(g)
    strided_slice(g)
    tile(g)
    # TileGrad: exempt, and no live case either (exempt_ops.txt): TensorFlow
    # runs it in no GraphDef, while stepflow runs it for old graphs.
    fill(g)
    range_op(g)
    one_hot(g)
    gather(g)
    dynamic_stitch(g)
    select(g, "Select")
    select(g, "SelectV2")
    add_n(g)
    broadcast_gradient_args(g)
    string_join(g)
    like(g, "ZerosLike")
    like(g, "OnesLike")
    for op in CWISE_GRADS:
        cwise_grad(g, op)
    placeholders(g)
    const(g)
    no_op_and_trigger(g)
    ref_variables(g)
    resource_variables(g)
    training(g)
    random_ops(g)
    control_flow(g)
    checkpoints(g)
    internal(g)


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


def read_exemptions(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                op, _, reason = line.partition(" ")
                out[op] = reason.strip()
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--ops_json", required=True,
                        help="output of //testing/tf_oracle:registered_ops")
    parser.add_argument("--golden", action="store_true",
                        help="only the compact subset meant to be committed")
    parser.add_argument("--only", default="", help="comma-separated op names")
    args = parser.parse_args(argv)
    with open(args.ops_json) as f:
        ops = {e["op"]: e for e in json.load(f)}
    only = [o for o in args.only.split(",") if o]
    exempt = read_exemptions(os.path.join(_HERE, "exempt_ops.txt"))
    g = Generator(args.out_dir, ops, args.golden, only, exempt)
    start = time.time()
    generate(g)
    elapsed = time.time() - start
    missing = [op for op in sorted(ops) if g.wants(op) and op not in g.counts
               and op not in exempt]
    extra = sorted(op for op in g.counts if op not in ops)
    total = sum(g.counts.values())
    print("generate_op_cases: %d cases for %d ops in %.1fs (%s)" % (
        total, len(g.counts), elapsed,
        ", ".join("%s %d" % kv for kv in sorted(g.codes.items()))))
    if extra:
        print("cases for ops stepflow does not register: " + ", ".join(extra))
    for line in g.failures:
        print("FAILED " + line)
    if missing:
        print("registered ops with no case and no exemption: " + ", ".join(missing))
    return 1 if g.failures or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
