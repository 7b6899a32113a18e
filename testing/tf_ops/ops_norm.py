"""Op cases for normalisation: FusedBatchNorm (V1, V2, V3) and their
gradients, LRN and LRNGrad.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw
import numpy as np
import tensorflow as tf

BN = (("FusedBatchNorm", raw.FusedBatchNorm, "FusedBatchNormGrad", raw.FusedBatchNormGrad),
      ("FusedBatchNormV2", raw.FusedBatchNormV2, "FusedBatchNormGradV2",
       raw.FusedBatchNormGradV2),
      ("FusedBatchNormV3", raw.FusedBatchNormV3, "FusedBatchNormGradV3",
       raw.FusedBatchNormGradV3))


def _channels(shape, fmt):
    return shape[-1] if fmt.endswith("C") else shape[1]


def batch_norm(g):
    for op, f, gop, gf in BN:
        v1 = op == "FusedBatchNorm"

        def bn(c, t, shape, fmt="NHWC", training=True, factor=1.0, sizes=None, f=f, v1=v1,
               static=False, eps=0.001):
            u = DTYPES[t] if v1 else tf.float32
            ch = _channels(shape, fmt)
            sizes = sizes or [ch] * 4
            x = c.input(DTYPES[t], shape, name="x", static=static)
            scale = c.input(u, [sizes[0]], kind="pos", name="scale", static=static)
            offset = c.input(u, [sizes[1]], name="offset", static=static)
            mean = c.input(u, [sizes[2]], name="mean", static=static)
            var = c.input(u, [sizes[3]], kind="pos", name="variance", static=static)
            out = f(x=x, scale=scale, offset=offset, mean=mean, variance=var, epsilon=eps,
                    exponential_avg_factor=factor, data_format=fmt, is_training=training)
            # In inference, and for an empty x, TensorFlow leaves the
            # reserve spaces unwritten: only y and the statistics compare.
            out = list(out)
            if not training or 0 in shape:
                out = out[:3]
            return (x, scale, offset), out

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, bn=bn: bn(c, t, [2, 3, 3, 4])[1],
                  golden=(t == "float"))
        for training in (True, False):
            mode = "training" if training else "inference"
            for fmt in ("NHWC", "NCHW"):
                shape = [2, 3, 4, 3] if fmt == "NHWC" else [2, 3, 4, 5]
                g.add(op, "%s_%s" % (mode, fmt.lower()),
                      lambda c, fmt=fmt, shape=shape, training=training, bn=bn:
                      bn(c, "float", shape, fmt, training)[1],
                      golden=(fmt == "NCHW" and not training))
        g.add(op, "exponential_avg_factor", lambda c, bn=bn: bn(
            c, "float", [4, 2, 2, 3], factor=0.25)[1], golden=True)
        g.add(op, "single_element_channel", lambda c, bn=bn: bn(
            c, "float", [1, 1, 1, 3])[1], note="n = 1: no Bessel correction")
        g.add(op, "empty", lambda c, bn=bn: bn(c, "float", [0, 2, 2, 3])[1])
        g.add(op, "empty_inference", lambda c, bn=bn: bn(c, "float", [0, 2, 2, 3],
                                                         training=False)[1])
        g.add(op, "rank3", lambda c, bn=bn: bn(c, "float", [2, 3, 4])[1])
        g.add(op, "scale_size", lambda c, bn=bn: bn(c, "float", [2, 2, 2, 3],
                                                    sizes=[4, 3, 3, 3])[1])
        g.add(op, "offset_size", lambda c, bn=bn: bn(c, "float", [2, 2, 2, 3],
                                                     sizes=[3, 2, 3, 3])[1])
        g.add(op, "unused_mean_empty", lambda c, bn=bn: bn(c, "float", [2, 2, 2, 3],
                                                           sizes=[3, 3, 0, 0])[1])
        g.add(op, "inference_mean_size", lambda c, bn=bn: bn(
            c, "float", [2, 2, 2, 3], training=False, sizes=[3, 3, 2, 3])[1])
        g.add(op, "factor_variance_size", lambda c, bn=bn: bn(
            c, "float", [2, 2, 2, 3], factor=0.5, sizes=[3, 3, 3, 4])[1])
        g.add(op, "large_training", lambda c, bn=bn: bn(c, "float", [8, 32, 32, 24])[1],
              note="split over the Scheduler's threads")
        g.add(op, "rank5_nhwc", lambda c, bn=bn: bn(c, "float", [1, 2, 2, 2, 3])[1])
        if op == "FusedBatchNormV3":
            for fmt in ("NDHWC", "NCDHW"):
                for training in (True, False):
                    g.add(op, "%s_%s" % (fmt.lower(), "training" if training else
                                         "inference"),
                          lambda c, fmt=fmt, training=training, bn=bn: bn(
                              c, "float", [2, 3, 2, 2, 3], fmt, training)[1],
                          golden=(fmt == "NCDHW" and training))
            g.add(op, "rank4_ndhwc", lambda c, bn=bn: bn(c, "float", [2, 2, 2, 3],
                                                         "NDHWC")[1])
        for training in (True, False):
            for fmt in ("NHWC", "NCHW"):
                for t in ("float", "half"):
                    if v1 and t != "float":
                        continue
                    name = "grad_%s_%s_%s" % ("training" if training else "inference",
                                              fmt.lower(), t)

                    def build(c, t=t, fmt=fmt, training=training, bn=bn):
                        (x, scale, offset), out = bn(c, t, [2, 3, 4, 3], fmt, training,
                                                     static=True)
                        return grads(c, [out[0]], [x, scale, offset])
                    g.add(op, name, build,
                          golden=(t == "float" and fmt == "NHWC"))

        # The gradient ops, raw.
        def bng(c, t, shape, fmt="NHWC", training=True, sizes=None, dys=None, gf=gf,
                v1=v1):
            u = DTYPES[t] if v1 else tf.float32
            ch = _channels(shape, fmt)
            sizes = sizes or [ch] * 3
            kw = dict(y_backprop=c.input(DTYPES[t], dys or shape, name="dy"),
                      x=c.input(DTYPES[t], shape, name="x"),
                      scale=c.input(u, [sizes[0]], kind="pos", name="scale"),
                      reserve_space_1=c.input(u, [sizes[1]], name="mean"),
                      reserve_space_2=c.input(u, [sizes[2]], kind="pos", name="variance"),
                      epsilon=0.001, data_format=fmt, is_training=training)
            if gop == "FusedBatchNormGradV3":
                kw["reserve_space_3"] = c.input(u, [0], name="rs3")
            return list(gf(**kw))

        for t in g.types(gop):
            g.add(gop, "dtype_" + t, lambda c, t=t, bng=bng: bng(c, t, [2, 3, 3, 4]),
                  golden=(t == "float"))
        for training in (True, False):
            for fmt in ("NHWC", "NCHW"):
                g.add(gop, "%s_%s" % ("training" if training else "inference", fmt.lower()),
                      lambda c, fmt=fmt, training=training, bng=bng: bng(
                          c, "float", [2, 3, 4, 5], fmt, training),
                      golden=(fmt == "NCHW" and not training))
        g.add(gop, "empty", lambda c, bng=bng: bng(c, "float", [0, 2, 2, 3]))
        g.add(gop, "shape_mismatch", lambda c, bng=bng: bng(c, "float", [2, 2, 2, 3],
                                                            dys=[2, 2, 1, 3]))
        g.add(gop, "scale_size", lambda c, bng=bng: bng(c, "float", [2, 2, 2, 3],
                                                        sizes=[2, 3, 3]))
        g.add(gop, "mean_size", lambda c, bng=bng: bng(c, "float", [2, 2, 2, 3],
                                                       sizes=[3, 4, 3]))
        g.add(gop, "rank3", lambda c, bng=bng: bng(c, "float", [2, 2, 3]))
        if gop == "FusedBatchNormGradV3":
            g.add(gop, "ncdhw", lambda c, bng=bng: bng(c, "float", [2, 3, 2, 2, 2], "NCDHW"))


def lrn(g):
    op = "LRN"

    def lr(c, t, shape, static=False, **kw):
        x = c.input(DTYPES[t], shape, name="x", static=static)
        return x, raw.LRN(input=x, **kw)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: lr(c, t, [2, 2, 3, 6], depth_radius=2)[1],
              golden=(t == "float"))
    for name, kw in (("defaults", {}),
                     ("beta_one", dict(depth_radius=1, bias=2.0, alpha=0.5, beta=1.0)),
                     ("beta_075", dict(depth_radius=3, bias=1.5, alpha=0.1, beta=0.75)),
                     ("radius_zero", dict(depth_radius=0, alpha=0.2)),
                     ("radius_wide", dict(depth_radius=20, alpha=0.01, beta=0.3))):
        g.add(op, name, lambda c, kw=kw: lr(c, "float", [2, 3, 2, 7], **kw)[1],
              golden=(name == "beta_075"))
    g.add(op, "large", lambda c: lr(c, "float", [4, 32, 32, 16], depth_radius=3)[1])
    g.add(op, "rank3", lambda c: lr(c, "float", [2, 3, 4])[1])
    g.add(op, "empty", lambda c: lr(c, "float", [0, 3, 2, 4])[1])
    g.add(op, "negative_radius", lambda c: lr(c, "float", [1, 2, 2, 4], depth_radius=-1)[1])
    for t in ("float", "half"):
        g.add(op, "grad_" + t,
              lambda c, t=t: (lambda xy: grads(c, [xy[1]], [xy[0]]))(
                  lr(c, t, [2, 2, 3, 6], static=True, depth_radius=2, alpha=0.3, beta=0.75)),
              golden=(t == "float"))
    g.add(op, "grad_beta_half",
          lambda c: (lambda xy: grads(c, [xy[1]], [xy[0]]))(
              lr(c, "float", [1, 2, 2, 5], static=True, depth_radius=1, bias=0.5,
                 alpha=1.5, beta=0.5)))
    op = "LRNGrad"

    def lg(c, t, shapes, **kw):
        x = c.input(DTYPES[t], shapes[1], name="x")
        y = raw.LRN(input=x, **kw) if shapes[2] == shapes[1] else \
            c.input(DTYPES[t], shapes[2], name="y")
        return raw.LRNGrad(input_grads=c.input(DTYPES[t], shapes[0], name="dy"),
                           input_image=x, output_image=y, **kw)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: lg(c, t, [[2, 2, 2, 5]] * 3, depth_radius=1),
              golden=(t == "float"))
    g.add(op, "shape_mismatch", lambda c: lg(c, "float", [[2, 2, 2, 5], [2, 2, 2, 5],
                                                          [2, 2, 2, 4]]))
    g.add(op, "rank3", lambda c: lg(c, "float", [[2, 2, 5]] * 3))
    g.add(op, "empty", lambda c: lg(c, "float", [[0, 2, 2, 5]] * 3))
