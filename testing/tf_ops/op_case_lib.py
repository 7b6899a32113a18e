"""The machinery behind generate_op_cases.py: cases and their recording.

Spec (what a case runs), Ctx (one case's graph-building state: fixed-seed
inputs fed through placeholders), grads (the graph tf.gradients builds for
a scalar function of an op's outputs), NodeDef helpers for graphs
TensorFlow's Python layer will not build, and Generator, which writes each
case (tf_oracle.write_case), records TensorFlow's result (run_case) and
works out the dtypes a case covers. The op families (ops_*.py) add their
cases through a Generator; generate_op_cases.py runs them.

Importing this module sets TensorFlow's environment (through tf_oracle)
and switches TensorFlow to control flow v1, so import it before
TensorFlow.
"""

import os
import shutil
import sys
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
                 scratch=False, edit=None, extra_fetch_names=(),
                 scratch_setup=None, scratch_outputs=()):
        self.fetches = list(fetches)
        self.targets = list(targets)
        self.init = list(init)
        self.steps = steps
        self.scratch = scratch
        # Called with the GraphDef before it is written (for nodes that
        # TensorFlow's Python layer will not build).
        self.edit = edit
        self.extra_fetch_names = list(extra_fetch_names)
        # With scratch: called with a directory to write the case's scratch
        # inputs into (e.g. a checkpoint saved by TensorFlow), and the files
        # of the scratch directory whose bytes the run reports.
        self.scratch_setup = scratch_setup
        self.scratch_outputs = list(scratch_outputs)


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
            elif kind == "gt1":
                v = rng.uniform(1.25, 4.0, size=shape)
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
        scratch_inputs = []
        if spec.scratch_setup is not None:
            inputs_dir = os.path.join(case_dir, "scratch_inputs")
            os.makedirs(inputs_dir)
            spec.scratch_setup(inputs_dir)
            scratch_inputs = ["scratch_inputs/" + f for f in sorted(os.listdir(inputs_dir))]
        tf_oracle.write_case(
            case_dir, full, graph_def, fetches=fetches, feeds=ctx.feeds,
            targets=[t.name for t in spec.targets],
            init_targets=[t if isinstance(t, str) else t.name for t in spec.init],
            steps=spec.steps, note=note, run_in_scratch_dir=spec.scratch,
            scratch_inputs=scratch_inputs, scratch_outputs=spec.scratch_outputs)
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
