"""Op cases for the optimizers beyond ops_state.training: RMSProp (plain and
centered), Adagrad and AdagradV2 (with their sparse forms), Adadelta,
AdaMax, ProximalAdagrad, ProximalGradientDescent, Ftrl and FtrlV2 (these
four with their sparse forms), all with their Resource forms;
raw, and as tf.compat.v1.train's optimizers build them.
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, raw, set_attr, v1
from ops_state import make_slots, run_slot_update, scalars
import numpy as np
import tensorflow as tf

# Per op: the slot variables after var, the hyper-parameter inputs with
# their values, and the attrs the op takes besides use_locking.
OPTIMIZERS = {
    "ApplyRMSProp": (["ms", "mom"], [("lr", 0.25), ("rho", 0.875),
                                     ("momentum", 0.5), ("epsilon", 1e-3)]),
    "ApplyCenteredRMSProp": (["mg", "ms", "mom"], [("lr", 0.25), ("rho", 0.875),
                                                   ("momentum", 0.5),
                                                   ("epsilon", 1e-3)]),
    "ApplyAdagrad": (["accum"], [("lr", 0.25)]),
    "ApplyAdagradV2": (["accum"], [("lr", 0.25), ("epsilon", 1e-3)]),
    "ApplyAdadelta": (["accum", "accum_update"], [("lr", 0.5), ("rho", 0.875),
                                                  ("epsilon", 1e-3)]),
    "ApplyAdaMax": (["m", "v"], [("beta1_power", 0.5), ("lr", 0.25), ("beta1", 0.5),
                                 ("beta2", 0.75), ("epsilon", 1e-3)]),
    "ApplyProximalAdagrad": (["accum"], [("lr", 0.25), ("l1", 0.125), ("l2", 0.25)]),
    "ApplyProximalGradientDescent": ([], [("alpha", 0.25), ("l1", 0.125), ("l2", 0.25)]),
    "ApplyFtrl": (["accum", "linear"], [("lr", 0.25), ("l1", 0.125), ("l2", 0.25),
                                        ("lr_power", -0.5)]),
    "ApplyFtrlV2": (["accum", "linear"], [("lr", 0.25), ("l1", 0.125), ("l2", 0.25),
                                          ("l2_shrinkage", 0.0625), ("lr_power", -0.5)]),
}

# Optimizers with sparse forms (SparseApply*) among OPTIMIZERS.
SPARSE = ("ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdagradV2",
          "ApplyProximalAdagrad", "ApplyProximalGradientDescent", "ApplyFtrl",
          "ApplyFtrlV2")


def update_case(c, op, t, resource, sparse, gshape=None, indices=None,
                scalar_shape=(), initialize=True, attrs=None, itype=tf.int32,
                overrides=None, static=False):
    """One raw update of a [4, 3] variable (and its slots) of dtype `t`,
    two steps; with `static`, grad and indices have static shapes (for
    shape inference)."""
    names, hypers = OPTIMIZERS[op]
    name = ("Resource" if resource else "") + ("Sparse" if sparse else "") + op
    vs, inits = make_slots(c, t, [4, 3], 1 + len(names), resource)
    feeds = scalars(c, t, [np.full(scalar_shape, (overrides or {}).get(h, x))
                           for h, x in hypers])
    args = {"var": vs[0]}
    args.update(zip(names, vs[1:]))
    args.update((h, f) for (h, _), f in zip(hypers, feeds))
    if sparse:
        idx = [3, 0, 3] if indices is None else indices
        args["indices"] = c.feed(np.asarray(idx, itype.as_numpy_dtype), name="indices",
                                 static=static)
        gshape = gshape or [len(idx), 3]
    # The dense ProximalGradientDescent names its gradient "delta".
    gname = "delta" if op == "ApplyProximalGradientDescent" and not sparse else "grad"
    args[gname] = c.input(DTYPES[t], gshape or [4, 3], name="grad", static=static)
    args.update(attrs or {})
    u = getattr(raw, name)(**args)
    return run_slot_update(c, t, u, vs, inits if initialize else [], resource)


def with_edit(spec, edit):
    """`spec` with its GraphDef edited by `edit` before it is written."""
    spec.edit = edit
    return spec


def optimizers(g):
    for resource in (False, True):
        prefix = "Resource" if resource else ""
        for base in OPTIMIZERS:
            for sparse in (False, True) if base in SPARSE else (False,):
                op = prefix + ("Sparse" if sparse else "") + base

                def case(c, t="float", base=base, sparse=sparse, resource=resource, **kw):
                    return update_case(c, base, t, resource, sparse, **kw)
                for t in g.types(op):
                    if base == "ApplyAdadelta" and t == "half":
                        # TensorFlow's vectorized half rsqrt (an estimate
                        # refined once) differs from an exact one by a few
                        # half ulps on some values; not compared.
                        continue
                    g.add(op, "dtype_" + t, lambda c, t=t, case=case: case(c, t),
                          golden=(t == "float"))
                g.add(op, "lr_not_scalar", lambda c, case=case: case(c, scalar_shape=[1]),
                      golden=True)
                g.add(op, "uninitialized", lambda c, case=case: case(c, initialize=False))
                if base in ("ApplyAdagrad", "ApplyAdagradV2"):
                    g.add(op, "no_update_slots",
                          lambda c, case=case: case(c, attrs={"update_slots": False}))
                if "Ftrl" in base:
                    g.add(op, "lr_power", lambda c, case=case: case(
                        c, overrides={"lr_power": -0.25}))
                    g.add(op, "multiply_linear_by_lr", lambda c, case=case: case(
                        c, attrs={"multiply_linear_by_lr": True}))
                    g.add(op, "negative_lr", lambda c, case=case: case(
                        c, overrides={"lr": -0.25}))
                    g.add(op, "positive_lr_power", lambda c, case=case: case(
                        c, overrides={"lr_power": 0.5}))
                    g.add(op, "negative_l1", lambda c, case=case: case(
                        c, overrides={"l1": -0.5}))
                    g.add(op, "negative_l2", lambda c, case=case: case(
                        c, overrides={"l2": -0.5}))
                    g.add(op, "zero_lr_by_lr", lambda c, case=case: case(
                        c, overrides={"lr": 0.0}, attrs={"multiply_linear_by_lr": True}))
                    if "V2" in base:
                        g.add(op, "negative_l2_shrinkage", lambda c, case=case: case(
                            c, overrides={"l2_shrinkage": -0.5}))
                if "Proximal" in base:
                    g.add(op, "no_l1", lambda c, case=case: case(c, overrides={"l1": 0.0}))
                if not resource:
                    g.add(op, "static_shapes", lambda c, case=case: case(c, static=True))
                if not sparse:
                    g.add(op, "shape_mismatch", lambda c, case=case: case(c, gshape=[4, 2]),
                          golden=True)
                    continue
                # Refused by shape inference at import: the grad placeholder's
                # static shape is edited after building.
                for name, shape in () if resource else (("static_grad_rows_mismatch", [2, 3]),
                                    ("static_grad_inner_mismatch", [3, 2]),
                                    ("static_grad_scalar", [])):
                    g.add(op, name, lambda c, case=case, shape=shape: with_edit(
                        case(c, static=True),
                        set_attr("grad", "shape", tf.TensorShape(shape))))
                g.add(op, "indices_int64",
                      lambda c, case=case: case(c, itype=tf.int64))
                g.add(op, "index_out_of_range",
                      lambda c, case=case: case(c, indices=[1, 4]), golden=True)
                g.add(op, "negative_index",
                      lambda c, case=case: case(c, indices=[-1]))
                g.add(op, "no_indices",
                      lambda c, case=case: case(c, indices=[]))
                g.add(op, "grad_rows_mismatch",
                      lambda c, case=case: case(c, indices=[0, 1], gshape=[3, 3]))
                g.add(op, "grad_inner_mismatch",
                      lambda c, case=case: case(c, indices=[0, 1], gshape=[2, 2]))

        # The v1 optimizers, minimizing a small least-squares loss.
        for name, case, make in (
                ("ApplyRMSProp", "optimizer", lambda: v1.train.RMSPropOptimizer(0.1)),
                ("ApplyRMSProp", "optimizer_momentum",
                 lambda: v1.train.RMSPropOptimizer(0.1, momentum=0.5)),
                ("ApplyCenteredRMSProp", "optimizer",
                 lambda: v1.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True)),
                ("ApplyAdagrad", "optimizer", lambda: v1.train.AdagradOptimizer(0.1)),
                ("ApplyAdadelta", "optimizer", lambda: v1.train.AdadeltaOptimizer(1.0)),
                ("ApplyFtrl", "optimizer", lambda: v1.train.FtrlOptimizer(0.1)),
                ("ApplyFtrlV2", "optimizer", lambda: v1.train.FtrlOptimizer(
                    0.1, l2_shrinkage_regularization_strength=0.01)),
                ("ApplyProximalAdagrad", "optimizer",
                 lambda: v1.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)),
                ("ApplyProximalGradientDescent", "optimizer",
                 lambda: v1.train.ProximalGradientDescentOptimizer(
                     0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02))):
            def optimizer(c, make=make, resource=resource):
                x = tf.constant(c.rand(tf.float32, [4, 3]))
                y = tf.constant(c.rand(tf.float32, [4, 1]))
                w = v1.Variable(c.rand(tf.float32, [3, 1]), use_resource=resource, name="w")
                b = v1.Variable(np.zeros([1], np.float32), use_resource=resource, name="b")
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                train = make().minimize(loss)
                init = v1.global_variables_initializer()
                return Spec(fetches=[loss], targets=[train], init=[init], steps=3)
            g.add(prefix + name, case, optimizer, golden=(case == "optimizer"),
                  note="as tf.compat.v1.train builds it, with its gradients")
