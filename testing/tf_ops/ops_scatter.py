"""Op cases for the scatter updates of variables: Scatter{Update,Add,Sub,
Mul,Div,Min,Max} on ref variables and ResourceScatter* on resource
variables, with repeated indices, scalar updates, several steps, and the
inputs TensorFlow rejects.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, raw, set_attr
from ops_state import make_slots, run_slot_update
import numpy as np
import tensorflow as tf

KINDS = ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max")


def scatter_case(c, kind, t, resource, indices=(2, 0, 2), ushape=None, itype=np.int32,
                 initialize=True, static=False):
    """Two steps of one scatter into a [4, 3] variable of dtype `t` (with
    `static`, indices and updates have static shapes)."""
    (v,), inits = make_slots(c, t, [4, 3], 1, resource)
    idx = c.feed(np.asarray(indices, itype), name="indices", static=static)
    kind_ushape = [len(indices), 3] if ushape is None else ushape
    u = c.input(DTYPES[t], kind_ushape, "pos" if kind == "Div" else "any", name="updates",
                static=static)
    if resource:
        op = getattr(raw, "ResourceScatter" + kind)(resource=v, indices=idx, updates=u)
    else:
        op = getattr(raw, "Scatter" + kind)(ref=v, indices=idx, updates=u)
    return run_slot_update(c, t, op, [v], inits if initialize else [], resource)


def static_cases(g, op, case, bad_updates):
    """The case with static shapes, and with the updates placeholder's
    static shape edited to each of `bad_updates` after building (refused by
    shape inference at import)."""
    g.add(op, "static_shapes", lambda c: case(c, static=True))
    for shape in bad_updates:
        def bad(c, shape=shape):
            spec = case(c, static=True)
            spec.edit = set_attr("updates", "shape", tf.TensorShape(shape))
            return spec
        g.add(op, "static_updates_" + "x".join(map(str, shape)), bad)


def scatters(g):
    for resource in (False, True):
        for kind in KINDS:
            op = ("ResourceScatter" if resource else "Scatter") + kind
            attr = "dtype" if resource else "T"

            def case(c, t="float", kind=kind, resource=resource, **kw):
                return scatter_case(c, kind, t, resource, **kw)
            for t in g.types(op, attr):
                g.add(op, "dtype_" + t, lambda c, t=t, case=case: case(c, t),
                      golden=(t == "float"))
            g.add(op, "scalar_updates", lambda c, case=case: case(c, ushape=[]))
            g.add(op, "indices_int64", lambda c, case=case: case(c, itype=np.int64))
            g.add(op, "index_matrix",
                  lambda c, case=case: case(c, indices=[[1, 3], [0, 1]], ushape=[2, 2, 3]))
            g.add(op, "index_out_of_range",
                  lambda c, case=case: case(c, indices=[1, 4]), golden=True)
            g.add(op, "negative_index", lambda c, case=case: case(c, indices=[-1]))
            # The resource forms: known_differences.txt.
            g.add(op, "updates_shape_mismatch",
                  lambda c, case=case: case(c, ushape=[3, 2]), golden=not resource)
            g.add(op, "no_indices", lambda c, case=case: case(c, indices=[], ushape=[0, 3]))
            g.add(op, "uninitialized", lambda c, case=case: case(c, initialize=False))
            if not resource:
                static_cases(g, op, case, ([3, 2], [2, 3], [3, 3, 1]))


def scatter_nd_case(c, kind, t, resource, indices=((2, 1), (0, 0), (2, 1)), ushape=None,
                    itype=np.int32, initialize=True, policy=None, static=False):
    """Two steps of one N-d scatter into a [4, 3] variable of dtype `t`
    (with `static`, indices and updates have static shapes)."""
    (v,), inits = make_slots(c, t, [4, 3], 1, resource)
    idx = np.asarray(indices, itype)
    ind = c.feed(idx, name="indices", static=static)
    if ushape is None:
        k = idx.shape[-1] if idx.ndim > 1 else 1
        ushape = list(idx.shape[:-1] if idx.ndim > 1 else idx.shape) + [4, 3][k:]
    u = c.input(DTYPES[t], ushape, name="updates", static=static)
    kw = {} if policy is None else {"bad_indices_policy": policy}
    if resource:
        op = getattr(raw, "ResourceScatterNd" + kind)(ref=v, indices=ind, updates=u, **kw)
    else:
        op = getattr(raw, "ScatterNd" + kind)(ref=v, indices=ind, updates=u, **kw)
    return run_slot_update(c, t, op, [v], inits if initialize else [], resource)


def scatter_nds(g):
    for resource in (False, True):
        for kind in ("Update", "Add", "Sub"):
            op = ("ResourceScatterNd" if resource else "ScatterNd") + kind

            def case(c, t="float", kind=kind, resource=resource, **kw):
                return scatter_nd_case(c, kind, t, resource, **kw)
            for t in g.types(op):
                g.add(op, "dtype_" + t, lambda c, t=t, case=case: case(c, t),
                      golden=(t == "float"))
            g.add(op, "rows", lambda c, case=case: case(c, indices=[[3], [1]]))
            # Not generated: 1-D indices, which TensorFlow 2.21 validates as
            # [N, 1] but applies as one N-tuple (inconsistent; stepflow
            # applies the validated reading).
            g.add(op, "indices_int64", lambda c, case=case: case(c, itype=np.int64))
            g.add(op, "out_of_range",
                  lambda c, case=case: case(c, indices=[[1, 1], [4, 0]]), golden=True)
            g.add(op, "ignore_bad_indices",
                  lambda c, case=case: case(c, indices=[[1, 1], [4, 0]], policy="IGNORE"))
            g.add(op, "updates_shape_mismatch",
                  lambda c, case=case: case(c, ushape=[3, 2]), golden=True)
            g.add(op, "uninitialized", lambda c, case=case: case(c, initialize=False))
            if not resource:
                static_cases(g, op, case, ([3, 2], [2], [3, 3]))
