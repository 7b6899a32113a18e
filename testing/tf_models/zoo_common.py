"""What the model families of the zoo share: the registry entry, the path
to the oracle module and small helpers for writing cases.

A model's builder takes the model's output directory and writes one or more
oracle cases under it (tf_oracle.write_case); it returns the case
directories, which the driver (generate_zoo.py) then runs through
TensorFlow (tf_oracle.run_case) into <case>/expected.
"""

import contextlib
import os
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
