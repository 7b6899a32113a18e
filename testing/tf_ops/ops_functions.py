"""Op cases for functions and functional control flow: PartitionedCall and
StatefulPartitionedCall (tf.function called in a graph, with variables,
nested functions and several outputs), If/StatelessIf and Case/StatelessCase
(tf.cond and tf.switch_case under control flow v2, tf.raw_ops.If/Case),
While/StatelessWhile (tf.while_loop under control flow v2, several loop
variables, nesting, parallel_iterations). stepflow lowers and inlines them
where TensorFlow does and runs the rest through its call kernels; the cases
hold the results to TensorFlow's.

unlowered() repeats every case as "<case>_unlowered" with the graph edited
so that TensorFlow (and stepflow) lowers nothing: every
`_lower_using_switch_merge` attr set to false (TensorFlow then runs its If,
Case and While kernels) and every library function marked `_noinline`
(calls run through PartitionedCall kernels instead of being inlined).

Each function adds one family's cases to a Generator (op_case_lib).
"""

import contextlib

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import Spec, raw, v1
import numpy as np
import tensorflow as tf


@contextlib.contextmanager
def _control_flow_v2():
    was_v2 = v1.control_flow_v2_enabled()
    v1.enable_control_flow_v2()
    try:
        yield
    finally:
        if not was_v2:
            v1.disable_control_flow_v2()


def _v2(build):
    """build(c) with tf.cond / tf.while_loop as functional ops."""
    def wrapped(c):
        with _control_flow_v2():
            return build(c)
    return wrapped


def calls(g):
    def stateless(c):
        x = c.input(tf.float32, [2, 3], name="x")

        @tf.function
        def affine(t):
            return t * 2.0 + 1.0
        return [affine(x)]
    g.add("PartitionedCall", "tf_function", stateless, golden=True,
          note="a stateless tf.function called in a graph")

    def several_outputs(c):
        x = c.input(tf.float32, [4], name="x")
        y = c.input(tf.float32, [4], name="y")

        @tf.function
        def both(a, b):
            return a + b, a * b, tf.reduce_sum(a)
        s, p, r = both(x, y)
        return [s, p, r]
    g.add("PartitionedCall", "several_outputs", several_outputs, golden=True)

    def nested(c):
        x = c.input(tf.float32, [3], name="x")

        @tf.function
        def inner(t):
            return tf.tanh(t) * 3.0

        @tf.function
        def outer(t):
            return inner(t) + inner(t * 2.0)
        return [outer(x)]
    g.add("PartitionedCall", "nested", nested, golden=True,
          note="a function calling another function")

    def int_and_passthrough(c):
        x = c.input(tf.int32, [5], name="x")

        @tf.function
        def f(t):
            return t, t // 2
        a, b = f(x)
        return [a, b]
    g.add("PartitionedCall", "int32_passthrough", int_and_passthrough)

    def variable_update(c):
        v = tf.Variable(np.arange(3, dtype=np.float32), name="v")
        x = c.input(tf.float32, [3], name="x")

        @tf.function
        def step(t):
            v.assign_add(t)
            return v.read_value() * 2.0
        out = step(x)
        return Spec(fetches=[out], init=[v.initializer], steps=3)
    g.add("StatefulPartitionedCall", "variable", variable_update, golden=True,
          note="a function updating a resource variable of the session")

    def variable_read_after(c):
        v = tf.Variable([1.0, 2.0], name="v")
        x = c.input(tf.float32, [2], name="x")

        @tf.function
        def bump(t):
            v.assign_add(t)

        bump(x)
        # The call node: a function without results returns no tensor.
        op = tf.compat.v1.get_default_graph().get_operations()[-1]
        with tf.control_dependencies([op]):
            r = v.read_value()
        return Spec(fetches=[r], init=[v.initializer], steps=2)
    g.add("StatefulPartitionedCall", "control_output", variable_read_after,
          golden=True, note="a read waits for the function's side effect")

    def matmul_in_function(c):
        x = c.input(tf.float32, [2, 3], name="x")
        w = c.input(tf.float32, [3, 2], name="w")

        @tf.function
        def f(a, b):
            return tf.nn.softmax(tf.matmul(a, b)), tf.shape(a)
        return list(f(x, w))
    g.add("PartitionedCall", "matmul_softmax", matmul_in_function)

    def error_in_body(c):
        x = c.input(tf.float32, [2, 3], name="x")
        n = c.feed(np.array(5, np.int32), name="n")

        @tf.function
        def f(t, k):
            return tf.reshape(t, tf.stack([k]))
        return [f(x, n)]
    g.add("PartitionedCall", "error_in_body", error_in_body, golden=True,
          note="a body node fails: the error keeps its code")


def conds(g):
    def cond(c, pred, stateless=True):
        x = c.input(tf.float32, [2, 3], name="x")
        p = c.feed(np.array(pred), name="pred")
        if stateless:
            return [tf.cond(p, lambda: tf.nn.relu(x) * 2.0, lambda: x - 1.0)]
        v = tf.Variable(tf.zeros([2, 3]), name="v")

        def then():
            with tf.control_dependencies([v.assign_add(x)]):
                return v.read_value() + 0.0

        return Spec(fetches=[tf.cond(p, then, lambda: x * 0.5)],
                    init=[v.initializer], steps=2)
    for pred in (True, False):
        g.add("StatelessIf", "cond_%s" % str(pred).lower(),
              _v2(lambda c, pred=pred: cond(c, pred)), golden=True,
              note="tf.cond under control flow v2")
        g.add("If", "variable_%s" % str(pred).lower(),
              _v2(lambda c, pred=pred: cond(c, pred, False)), golden=pred,
              note="a branch updates a variable; only the taken one runs")

    def untaken_branch_fails(c, pred):
        x = c.input(tf.float32, [6], name="x")
        n = c.feed(np.array(4, np.int32), name="n")
        p = c.feed(np.array(pred), name="pred")
        return [tf.cond(p, lambda: x * 2.0,
                        lambda: tf.reduce_sum(tf.reshape(x, tf.stack([n]))))]
    g.add("StatelessIf", "untaken_branch_would_fail",
          _v2(lambda c: untaken_branch_fails(c, True)), golden=True,
          note="the branch not taken would fail; it does not run")
    g.add("StatelessIf", "taken_branch_fails",
          _v2(lambda c: untaken_branch_fails(c, False)))

    def constant_branches(c, pred):
        p = c.feed(np.array(pred), name="pred")
        return [tf.cond(p, lambda: tf.constant([1.0, 2.0]),
                        lambda: tf.constant([-1.0, -2.0]))]
    for pred in (True, False):
        g.add("StatelessIf", "constant_branches_%s" % str(pred).lower(),
              _v2(lambda c, pred=pred: constant_branches(c, pred)),
              note="branches without inputs wait for the predicate")

    def several_outputs(c):
        x = c.input(tf.float32, [3], name="x")
        k = c.input(tf.int32, [], name="k", kind="small")
        p = c.feed(np.array(False), name="pred")
        a, b = tf.cond(p, lambda: (x + 1.0, k * 2), lambda: (x * x, k - 1))
        return [a, b]
    g.add("StatelessIf", "several_outputs", _v2(several_outputs))

    def nested(c, a, b):
        x = c.input(tf.float32, [3], name="x")
        pa = c.feed(np.array(a), name="pa")
        pb = c.feed(np.array(b), name="pb")
        return [tf.cond(pa, lambda: tf.cond(pb, lambda: x + 1.0, lambda: x - 1.0),
                        lambda: x * 3.0)]
    g.add("StatelessIf", "nested", _v2(lambda c: nested(c, True, False)))

    def raw_if(c, pred):
        x = c.input(tf.float32, [4], name="x")
        p = c.feed(np.array(pred), name="pred")
        spec = tf.TensorSpec([4], tf.float32)
        then_f = tf.function(lambda t: [t * 10.0]).get_concrete_function(spec)
        else_f = tf.function(lambda t: [-t]).get_concrete_function(spec)
        return raw.If(cond=p, input=[x], Tout=[tf.float32], then_branch=then_f,
                      else_branch=else_f)
    g.add("If", "raw_true", lambda c: raw_if(c, True), golden=True,
          note="tf.raw_ops.If")
    g.add("If", "raw_false", lambda c: raw_if(c, False))
    for name, pred in (("int_cond_0", np.array(0, np.int32)),
                       ("int_cond_3", np.array(3, np.int32)),
                       ("float_cond_neg", np.array(-0.5, np.float32)),
                       ("vector_cond", np.array([False, False])),
                       ("empty_cond", np.zeros([0], np.int32))):
        g.add("If", name, lambda c, pred=pred: raw_if(c, pred),
              golden=name == "vector_cond",
              note="a cond that is not a bool scalar: TensorFlow's If kernel "
                   "reads non-zero scalars and non-empty tensors as true")

    def cond_grad(c, pred):
        x = c.input(tf.float32, [3], name="x", static=True)
        p = c.feed(np.array(pred), name="pred")
        y = tf.cond(p, lambda: tf.sin(x) * x, lambda: x * x * x)
        return tf.gradients(tf.reduce_sum(y), [x])
    g.add("StatelessIf", "gradient", _v2(lambda c: cond_grad(c, True)),
          note="the gradient If tf.gradients builds")


def cases(g):
    def switch_case(c, index, stateless=True):
        x = c.input(tf.float32, [3], name="x")
        i = c.feed(np.array(index, np.int32), name="i")
        branches = [lambda: x + 10.0, lambda: tf.reduce_sum(x) * x, lambda: -x]
        return [tf.switch_case(i, branches)]
    for index in (0, 1, 2):
        g.add("StatelessCase", "branch_%d" % index,
              _v2(lambda c, index=index: switch_case(c, index)),
              golden=index == 1, note="tf.switch_case under control flow v2")
    for index in (-1, 3, 100):
        g.add("StatelessCase", "out_of_range_%d" % index,
              _v2(lambda c, index=index: switch_case(c, index)),
              golden=index == 3,
              note="an index outside the branches runs the last (default) one")

    def with_default(c, index):
        x = c.input(tf.float32, [2], name="x")
        i = c.feed(np.array(index, np.int32), name="i")
        return [tf.switch_case(i, {0: lambda: x * 2.0, 1: lambda: x * 3.0},
                               default=lambda: x - 100.0)]
    for index in (1, 2):
        g.add("StatelessCase", "default_%d" % index,
              _v2(lambda c, index=index: with_default(c, index)))

    def constant_case(c, index):
        i = c.feed(np.array(index, np.int32), name="i")
        return [tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20),
                                   lambda: tf.constant(30)])]
    for index in (1, 5):
        g.add("StatelessCase", "constant_branches_%d" % index,
              _v2(lambda c, index=index: constant_case(c, index)))

    def raw_case(c, index):
        x = c.input(tf.float32, [2, 2], name="x")
        i = c.feed(np.array(index, np.int32), name="i")
        spec = tf.TensorSpec([2, 2], tf.float32)
        def add_one(t):
            return [t + 1.0]

        def transpose(t):
            return [tf.transpose(t)]

        def square(t):
            return [t * t]
        fns = [tf.function(f).get_concrete_function(spec)
               for f in (add_one, transpose, square)]
        return raw.Case(branch_index=i, input=[x], Tout=[tf.float32], branches=fns)
    for index in (0, 2, 7):
        g.add("Case", "raw_%d" % index, lambda c, index=index: raw_case(c, index),
              golden=index == 7, note="tf.raw_ops.Case")

    def variable_case(c, index):
        v = tf.Variable([1.0, 1.0], name="v")
        i = c.feed(np.array(index, np.int32), name="i")

        def bump(k):
            def f():
                with tf.control_dependencies([v.assign_add([k, k])]):
                    return v.read_value() * 1.0
            return f
        out = tf.switch_case(i, [bump(1.0), bump(10.0)])
        return Spec(fetches=[out], init=[v.initializer], steps=2)
    g.add("Case", "variable", _v2(lambda c: variable_case(c, 1)))


def whiles(g):
    def loop(c, n, parallel=10):
        x = c.input(tf.float32, [2], name="x")
        limit = c.feed(np.array(n, np.int32), name="n")
        i, y = tf.while_loop(lambda i, y: i < limit,
                             lambda i, y: (i + 1, y * 1.5 + tf.cast(i, tf.float32)),
                             [tf.constant(0), x], parallel_iterations=parallel)
        return [i, y]
    g.add("StatelessWhile", "loop_5", _v2(lambda c: loop(c, 5)), golden=True,
          note="tf.while_loop under control flow v2")
    g.add("StatelessWhile", "loop_0", _v2(lambda c: loop(c, 0)))
    g.add("StatelessWhile", "parallel_iterations_1",
          _v2(lambda c: loop(c, 4, parallel=1)))

    def several_vars(c):
        x = c.input(tf.float32, [3], name="x", static=True)
        w = c.input(tf.float32, [3], name="w", static=True)
        n = c.feed(np.array(4, np.int32), name="n")
        out = tf.while_loop(
            lambda i, a, b, s: i < n,
            lambda i, a, b, s: (i + 1, a * w, b + a, s + tf.reduce_sum(a)),
            [tf.constant(0), x, tf.zeros([3]), tf.constant(0.0)])
        return list(out)
    g.add("StatelessWhile", "several_vars", _v2(several_vars), golden=True,
          note="four loop variables and a loop-invariant input")

    def nested(c):
        n = c.feed(np.array(3, np.int32), name="n")

        def outer(i, acc):
            _, inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j),
                                     [tf.constant(0), acc])
            return i + 1, inner
        return list(tf.while_loop(lambda i, acc: i < n, outer,
                                  [tf.constant(0), tf.constant(0)]))
    g.add("StatelessWhile", "nested", _v2(nested))

    def with_cond(c):
        n = c.feed(np.array(6, np.int32), name="n")
        return list(tf.while_loop(
            lambda i, s: i < n,
            lambda i, s: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: s + i,
                                         lambda: s - 1)),
            [tf.constant(0), tf.constant(0)]))
    g.add("StatelessWhile", "with_cond", _v2(with_cond))

    def variable_loop(c):
        v = tf.Variable(0.0, name="v")
        n = c.feed(np.array(5, np.int32), name="n")

        def body(i):
            with tf.control_dependencies([v.assign_add(tf.cast(i, tf.float32))]):
                return i + 1
        out = tf.while_loop(lambda i: i < n, body, [tf.constant(0)])[0]
        with tf.control_dependencies([out]):
            r = v.read_value()
        return Spec(fetches=[out, r], init=[v.initializer], steps=2)
    g.add("While", "variable", _v2(variable_loop), golden=True,
          note="the body updates a resource variable every iteration")

    def raw_while(c):
        x = c.input(tf.float32, [2], name="x")
        specs = [tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32)]
        cond_f = tf.function(lambda i, y: i < 3).get_concrete_function(*specs)
        body_f = tf.function(lambda i, y: [i + 1, y * 2.0]).get_concrete_function(*specs)
        return raw.While(input=[tf.constant(0), x], cond=cond_f, body=body_f)
    g.add("While", "raw", raw_while, note="tf.raw_ops.While")

    def loop_in_function(c):
        x = c.input(tf.float32, [2], name="x")

        @tf.function
        def f(t):
            return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y + t),
                                 [tf.constant(0), t])[1]
        return [f(x)]
    g.add("PartitionedCall", "while_inside", loop_in_function)


def _unlower(graph_def):
    """Clears `_lower_using_switch_merge` and marks functions `_noinline`."""
    def clear(nodes):
        for n in nodes:
            if "_lower_using_switch_merge" in n.attr:
                n.attr["_lower_using_switch_merge"].b = False
    clear(graph_def.node)
    for f in graph_def.library.function:
        clear(f.node_def)
        f.attr["_noinline"].b = True


class _Unlowered:
    """A Generator whose cases are the unlowered variants of those added."""

    def __init__(self, g):
        self._g = g

    def add(self, op, name, build, golden=False, note=""):
        def unlowered_build(c):
            spec = build(c)
            if not isinstance(spec, Spec):
                spec = Spec(fetches=spec if isinstance(spec, (list, tuple)) else [spec])
            edit = spec.edit

            def both(graph_def):
                if edit is not None:
                    edit(graph_def)
                _unlower(graph_def)
            spec.edit = both
            return spec
        self._g.add(op, name + "_unlowered", unlowered_build, golden=golden,
                    note=(note + "; " if note else "") +
                    "unlowered: TensorFlow runs its functional kernels")


def unlowered(g):
    u = _Unlowered(g)
    calls(u)
    conds(u)
    cases(u)
    whiles(u)
