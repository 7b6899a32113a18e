"""Op cases for state: ref variables (VariableV2, Assign...), resource
variables (VarHandleOp, ReadVariableOp...) and the optimizers' Apply ops,
raw and as tf.compat.v1.train builds them.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, np_type, raw, set_attr, v1
import numpy as np
import tensorflow as tf


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


def make_slots(c, t, shape, n, resource):
    """`n` variables of dtype `t` (ref, or resource when `resource`), the
    first of any sign and the rest positive, and their initializers."""
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


def scalars(c, t, values):
    """Fed scalars of dtype `t`."""
    return [c.feed(np.asarray(x, np_type(DTYPES[t])), name="s%d" % k)
            for k, x in enumerate(values)]


def run_slot_update(c, t, update, vs, inits, resource):
    """Two steps of `update`, fetching the variables `vs` after each (and the
    ref output of a ref update)."""
    if resource:
        with tf.control_dependencies([update]):
            rs = [raw.ReadVariableOp(resource=v, dtype=DTYPES[t]) for v in vs]
        return Spec(fetches=rs, init=inits, steps=2)
    with tf.control_dependencies([update]):
        rs = [tf.identity(v) for v in vs]
    return Spec(fetches=[update] + rs, init=inits, steps=2)


def training(g):
    """ApplyGradientDescent, ApplyMomentum, ApplyAdam and their resource
    forms: raw, and as the v1 optimizers build them."""
    for resource in (False, True):
        prefix = "Resource" if resource else ""

        def slots(c, t, shape, n, resource=resource):
            return make_slots(c, t, shape, n, resource)

        def run_update(c, t, update, vs, inits, resource=resource):
            return run_slot_update(c, t, update, vs, inits, resource)

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
