"""What the model families of the zoo share: the registry entry, the path
to the oracle module and small helpers for writing cases.

A model's builder takes the model's output directory and writes one or more
oracle cases under it (tf_oracle.write_case); it returns the case
directories, which the driver (generate_zoo.py) then runs through
TensorFlow (tf_oracle.run_case) into <case>/expected.
"""

import contextlib
import json
import os
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "tf_oracle"))

import tf_oracle  # noqa: E402  (sets the TensorFlow environment first)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


class Model(object):
    """One zoo entry.

    name:    the directory under the zoo root and the case name after "zoo/"
    build:   build(model_dir) -> [case_dir, ...]
    golden:  small enough to commit as a golden (README.md)
    summary: one line for README.md and --list
    """

    def __init__(self, name, build, golden, summary):
        self.name = name
        self.build = build
        self.golden = golden
        self.summary = summary


def case_name(model_dir, case_dir):
    """ "zoo/<model>" for a model's only case, "zoo/<model>/<variant>"
    otherwise; model_dir's basename is the model's name."""
    model = os.path.basename(os.path.normpath(model_dir))
    rel = os.path.relpath(case_dir, model_dir)
    return "zoo/" + model if rel == "." else "zoo/%s/%s" % (model, rel)


def write_case(model_dir, variant, **kwargs):
    """tf_oracle.write_case into model_dir (variant None) or
    model_dir/variant, with the zoo's case name; returns the directory."""
    case_dir = model_dir if variant is None else os.path.join(model_dir, variant)
    os.makedirs(case_dir, exist_ok=True)
    tf_oracle.write_case(case_dir, case_name(model_dir, case_dir), **kwargs)
    return case_dir


_FUNCTIONAL_OPS = {"If", "StatelessIf", "Case", "StatelessCase", "While",
                   "StatelessWhile"}
_LOWER_ATTR = "_lower_using_switch_merge"


def _clear_lowering(nodes):
    """Sets the lowering attr of every functional node to false; returns
    whether any node carried it."""
    found = False
    for n in nodes:
        if n.op in _FUNCTIONAL_OPS and _LOWER_ATTR in n.attr:
            found = True
            n.attr[_LOWER_ATTR].b = False
    return found


def unlowered_variant(case_dir):
    """For a case whose graph has If/Case/While nodes marked
    `_lower_using_switch_merge` (in the graph or its functions), writes
    <case_dir>/unlowered: the same case with that attr false on every
    functional node, so TensorFlow runs its If/Case/While kernels instead
    of lowering them. Returns its directory, or None when the case has no
    such node (or is a SavedModel case)."""
    graph_path = os.path.join(case_dir, "graph.pb")
    if not os.path.exists(graph_path):
        return None
    graph_def = tf.compat.v1.GraphDef()
    with open(graph_path, "rb") as f:
        graph_def.ParseFromString(f.read())
    found = _clear_lowering(graph_def.node)
    for function in graph_def.library.function:
        found = _clear_lowering(function.node_def) or found
    if not found:
        return None
    out = os.path.join(case_dir, "unlowered")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(case_dir, out,
                    ignore=lambda d, names: [n for n in names
                                             if d == case_dir and
                                             n in ("expected", "unlowered")])
    with open(os.path.join(out, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    with open(os.path.join(out, "case.json")) as f:
        case = json.load(f)
    case["name"] += "/unlowered"
    case["note"] = ((case.get("note", "") + "; ") if case.get("note") else "") + \
        "unlowered: every functional node's _lower_using_switch_merge is false"
    with open(os.path.join(out, "case.json"), "w") as f:
        json.dump(case, f, indent=1, sort_keys=True)
        f.write("\n")
    return out


def rng(seed):
    return np.random.RandomState(seed)


def glorot(r, shape):
    """Fixed initial weights: a Glorot-uniform draw from NumPy."""
    fan_in = int(np.prod(shape[:-1]))
    fan_out = int(shape[-1]) if len(shape) == 1 else int(np.prod(shape[:-2]) * shape[-1])
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return r.uniform(-limit, limit, size=shape).astype(np.float32)


@contextlib.contextmanager
def control_flow_v1():
    """Builds tf.cond / tf.while_loop as TF1 did (Switch, Merge, Enter,
    Exit, NextIteration) instead of functional If / While ops."""
    was_v2 = tf.compat.v1.control_flow_v2_enabled()
    tf.compat.v1.disable_control_flow_v2()
    try:
        yield
    finally:
        if was_v2:
            tf.compat.v1.enable_control_flow_v2()


@contextlib.contextmanager
def control_flow_v2():
    """Builds tf.cond / tf.while_loop as functional If / While ops."""
    was_v2 = tf.compat.v1.control_flow_v2_enabled()
    tf.compat.v1.enable_control_flow_v2()
    try:
        yield
    finally:
        if not was_v2:
            tf.compat.v1.disable_control_flow_v2()
