"""Op cases for the scatter updates of variables: Scatter{Update,Add,Sub,
Mul,Div,Min,Max} on ref variables and ResourceScatter* on resource
variables, with repeated indices, scalar updates, several steps, and the
inputs TensorFlow rejects.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, raw
from ops_state import make_slots, run_slot_update
import numpy as np
import tensorflow as tf

KINDS = ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max")


def scatter_case(c, kind, t, resource, indices=(2, 0, 2), ushape=None, itype=np.int32,
                 initialize=True):
    """Two steps of one scatter into a [4, 3] variable of dtype `t`."""
    (v,), inits = make_slots(c, t, [4, 3], 1, resource)
    idx = c.feed(np.asarray(indices, itype), name="indices")
    kind_ushape = [len(indices), 3] if ushape is None else ushape
    u = c.input(DTYPES[t], kind_ushape, "pos" if kind == "Div" else "any", name="updates")
    if resource:
        op = getattr(raw, "ResourceScatter" + kind)(resource=v, indices=idx, updates=u)
    else:
        op = getattr(raw, "Scatter" + kind)(ref=v, indices=idx, updates=u)
    return run_slot_update(c, t, op, [v], inits if initialize else [], resource)


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
