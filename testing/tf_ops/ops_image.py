"""Op cases for the image ops: ResizeBilinear(Grad),
ResizeNearestNeighbor(Grad), ResizeArea, CropAndResize, AdjustContrastv2
and NonMaxSuppressionV3-V5.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw
import numpy as np
import tensorflow as tf

# (align_corners, half_pixel_centers)
MODES = ((False, False), (True, False), (False, True))


def _mode_name(align, half):
    return "align" if align else ("half_pixel" if half else "legacy")


def _size(c, s):
    return c.feed(np.array(s, np.int32), name="size")


def resize(g, op, grad_op=None):
    f = getattr(raw, op)
    has_half = op != "ResizeArea"

    def rs(c, t, shape, size, align=False, half=False, static=False, kind="any"):
        x = c.input(DTYPES[t], shape, name="x", static=static, kind=kind)
        kw = dict(align_corners=align)
        if has_half:
            kw["half_pixel_centers"] = half
        sz = tf.constant(np.array(size, np.int32)) if static else _size(c, size)
        return x, f(images=x, size=sz, **kw)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: rs(c, t, [2, 3, 4, 2], [5, 3])[1],
              golden=(t == "float"))
    for align, half in (MODES if has_half else MODES[:2]):
        for name, shape, size in (("up", [1, 3, 4, 2], [7, 9]), ("down", [2, 8, 6, 1], [3, 4]),
                                  ("mixed", [1, 5, 2, 3], [2, 7]), ("one", [1, 4, 3, 1], [1, 1])):
            case = "%s_%s" % (_mode_name(align, half), name)
            g.add(op, case, lambda c, shape=shape, size=size, align=align, half=half:
                  rs(c, "float", shape, size, align, half)[1],
                  golden=(name == "up" and (half or not has_half) and not align))
    if has_half:
        g.add(op, "align_and_half_pixel",
              lambda c: rs(c, "float", [1, 2, 2, 1], [3, 3], True, True)[1])
    g.add(op, "large", lambda c: rs(c, "float", [4, 24, 24, 16], [61, 47])[1])
    g.add(op, "rank3", lambda c: rs(c, "float", [2, 2, 1], [3, 3])[1])
    g.add(op, "zero_channels", lambda c: rs(c, "float", [1, 2, 2, 0], [3, 3])[1])
    g.add(op, "empty_image", lambda c: rs(c, "float", [1, 0, 2, 1], [3, 3])[1])
    g.add(op, "empty_batch", lambda c: rs(c, "float", [0, 2, 2, 1], [3, 3])[1])
    g.add(op, "zero_size", lambda c: rs(c, "float", [1, 2, 2, 1], [0, 3])[1])
    g.add(op, "size_three", lambda c: rs(c, "float", [1, 2, 2, 1], [3, 3, 3])[1])
    g.add(op, "size_matrix", lambda c: f(images=c.input(tf.float32, [1, 2, 2, 1], name="x"),
                                         size=_size(c, [[3, 3]])))
    if grad_op is None:
        return
    for align, half in MODES:
        for t in (("float", "double", "half") if op == "ResizeBilinear" else
                  ("float", "double", "half")):
            name = "grad_%s_%s" % (_mode_name(align, half), t)
            g.add(op, name, lambda c, align=align, half=half, t=t: (
                lambda xy: grads(c, [xy[1]], [xy[0]]))(
                    rs(c, t, [2, 3, 4, 2], [5, 7], align, half, static=True)),
                  golden=(not align and not half and t == "float"))
            g.add(op, name + "_down", lambda c, align=align, half=half, t=t: (
                lambda xy: grads(c, [xy[1]], [xy[0]]))(
                    rs(c, t, [1, 7, 5, 2], [3, 2], align, half, static=True)))
    gf = getattr(raw, grad_op)
    if grad_op == "ResizeBilinearGrad":
        def rg(c, t, gshape, oshape, align=False, half=False):
            return gf(grads=c.input(tf.float32, gshape, name="dy"),
                      original_image=c.input(DTYPES[t], oshape, name="x"),
                      align_corners=align, half_pixel_centers=half)
    else:
        def rg(c, t, gshape, oshape, align=False, half=False):
            return gf(grads=c.input(DTYPES[t], gshape, name="dy"), size=_size(c, oshape[1:3]),
                      align_corners=align, half_pixel_centers=half)
    for t in g.types(grad_op):
        g.add(grad_op, "dtype_" + t, lambda c, t=t: rg(c, t, [2, 5, 3, 2], [2, 3, 4, 2]),
              golden=(t == "float"))
    for align, half in MODES:
        g.add(grad_op, _mode_name(align, half), lambda c, align=align, half=half: rg(
            c, "float", [1, 7, 2, 2], [1, 3, 5, 2], align, half))
    g.add(grad_op, "align_and_half_pixel", lambda c: rg(
        c, "float", [1, 3, 3, 1], [1, 2, 2, 1], True, True))
    g.add(grad_op, "rank3", lambda c: rg(c, "float", [3, 3, 1], [1, 2, 2, 1]))
    g.add(grad_op, "empty_batch", lambda c: rg(c, "float", [0, 3, 3, 1], [0, 2, 2, 1]))


def crop_and_resize(g):
    op = "CropAndResize"
    f = raw.CropAndResize
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.5, 0.2, 0.1], [-0.2, 0.3, 1.3, 0.6],
                      [0.0, 0.0, 1.0, 1.0]], np.float32)

    def cr(c, t, ishape, b=boxes, ind=(0, 1, 1, 0), size=(3, 4), **kw):
        return f(image=c.input(DTYPES[t], ishape, name="image"),
                 boxes=c.feed(np.asarray(b, np.float32), name="boxes"),
                 box_ind=c.feed(np.array(ind, np.int32), name="box_ind"),
                 crop_size=c.feed(np.array(size, np.int32), name="crop_size"), **kw)
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cr(c, t, [2, 5, 6, 2]), golden=(t == "float"))
    g.add(op, "nearest", lambda c: cr(c, "float", [2, 5, 6, 2], method="nearest"),
          golden=True)
    g.add(op, "extrapolation", lambda c: cr(c, "float", [2, 5, 6, 2], extrapolation_value=-1.5))
    g.add(op, "crop_one", lambda c: cr(c, "float", [2, 5, 6, 2], size=(1, 1)))
    g.add(op, "crop_one_nearest", lambda c: cr(c, "float", [2, 5, 6, 2], size=(1, 3),
                                               method="nearest"))
    g.add(op, "no_boxes", lambda c: cr(c, "float", [2, 5, 6, 2], b=np.zeros([0, 4]), ind=()))
    g.add(op, "box_index_out_of_range", lambda c: cr(c, "float", [2, 5, 6, 2],
                                                     ind=(0, 2, 1, 0)))
    g.add(op, "box_index_negative", lambda c: cr(c, "float", [2, 5, 6, 2], ind=(0, -1, 1, 0)))
    g.add(op, "boxes_three_columns", lambda c: cr(c, "float", [2, 5, 6, 2], b=boxes[:, :3]))
    g.add(op, "box_ind_size", lambda c: cr(c, "float", [2, 5, 6, 2], ind=(0, 1)))
    g.add(op, "crop_zero", lambda c: cr(c, "float", [2, 5, 6, 2], size=(0, 2)))
    g.add(op, "crop_size_three", lambda c: cr(c, "float", [2, 5, 6, 2], size=(2, 2, 2)))
    g.add(op, "image_rank3", lambda c: cr(c, "float", [5, 6, 2]))
    g.add(op, "image_empty", lambda c: cr(c, "float", [2, 0, 6, 2]))


def adjust_contrast(g):
    op = "AdjustContrastv2"

    def ac(c, t, shape, factor=1.7, fshape=()):
        return raw.AdjustContrastv2(
            images=c.input(DTYPES[t], shape, name="images"),
            contrast_factor=c.feed(np.full(fshape, factor, np.float32), name="factor"))
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: ac(c, t, [2, 3, 4, 3]), golden=(t == "float"))
    g.add(op, "rank3", lambda c: ac(c, "float", [3, 4, 2], 0.5), golden=True)
    g.add(op, "rank5", lambda c: ac(c, "float", [2, 2, 3, 3, 2], -0.3))
    g.add(op, "rank2", lambda c: ac(c, "float", [3, 4]))
    g.add(op, "factor_vector", lambda c: ac(c, "float", [3, 4, 2], fshape=(1,)))
    g.add(op, "empty", lambda c: ac(c, "float", [0, 3, 4, 2]))


def nms(g):
    rng = np.random.RandomState(7)
    corners = rng.uniform(0, 1, size=(12, 2, 2)).astype(np.float32)
    boxes = np.concatenate([corners[:, 0], corners[:, 0] + rng.uniform(
        0.05, 0.5, size=(12, 2)).astype(np.float32)], axis=1)
    boxes[3] = boxes[3][[2, 3, 0, 1]]  # corners flipped
    boxes[5] = [0.2, 0.2, 0.2, 0.6]    # zero area
    scores = rng.uniform(0, 1, size=12).astype(np.float32)
    scores[7] = scores[2]              # a tie

    for op in ("NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"):
        f = getattr(raw, op)

        def run(c, t="float", b=boxes, s=scores, max_out=6, iou=0.3, score=0.1, sigma=0.0,
                pad=False, iou_shape=(), op=op, f=f, tt=None):
            kw = dict(boxes=c.feed(np.asarray(b).astype(DTYPES[t].as_numpy_dtype),
                                   name="boxes"),
                      scores=c.feed(np.asarray(s).astype(DTYPES[t].as_numpy_dtype),
                                    name="scores"),
                      max_output_size=c.feed(np.array(max_out, np.int32), name="max"))
            if tt is None:
                tt = DTYPES[t] if op == "NonMaxSuppressionV5" else tf.float32
            kw["iou_threshold"] = c.feed(np.full(iou_shape, iou, tt.as_numpy_dtype), name="iou")
            kw["score_threshold"] = c.feed(np.array(score, tt.as_numpy_dtype), name="score")
            if op == "NonMaxSuppressionV5":
                kw["soft_nms_sigma"] = c.feed(np.array(sigma, tt.as_numpy_dtype), name="sigma")
            if op != "NonMaxSuppressionV3":
                kw["pad_to_max_output_size"] = pad
            out = f(**kw)
            return list(out) if isinstance(out, (list, tuple)) else [out]

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, run=run: run(c, t), golden=(t == "float"))
        g.add(op, "iou_zero", lambda c, run=run: run(c, iou=0.0))
        if op != "NonMaxSuppressionV5":
            for t in ("float", "half"):
                g.add(op, "threshold_half_" + t, lambda c, t=t, run=run: run(
                    c, t, iou=0.3, score=0.3, tt=tf.float16))
        g.add(op, "iou_one", lambda c, run=run: run(c, iou=1.0, max_out=20))
        g.add(op, "no_score_threshold", lambda c, run=run: run(c, score=-np.inf, max_out=20))
        g.add(op, "high_score_threshold", lambda c, run=run: run(c, score=0.9))
        g.add(op, "max_zero", lambda c, run=run: run(c, max_out=0))
        g.add(op, "no_boxes", lambda c, run=run: run(c, b=np.zeros([0, 4]), s=np.zeros([0])))
        g.add(op, "iou_out_of_range", lambda c, run=run: run(c, iou=1.5))
        g.add(op, "iou_vector", lambda c, run=run: run(c, iou_shape=(1,)))
        g.add(op, "negative_max", lambda c, run=run: run(c, max_out=-1))
        g.add(op, "boxes_three_columns", lambda c, run=run: run(c, b=boxes[:, :3]))
        g.add(op, "scores_size", lambda c, run=run: run(c, s=scores[:5]))
        if op != "NonMaxSuppressionV3":
            g.add(op, "padded", lambda c, run=run: run(c, max_out=10, pad=True),
                  golden=True)
        if op == "NonMaxSuppressionV5":
            for sigma in (0.5, 0.1):
                g.add(op, "soft_sigma_%s" % str(sigma).replace(".", ""),
                      lambda c, sigma=sigma, run=run: run(c, sigma=sigma, iou=0.6,
                                                          max_out=10, pad=True),
                      golden=(sigma == 0.5))
            g.add(op, "negative_sigma", lambda c, run=run: run(c, sigma=-1.0))


def image(g):
    resize(g, "ResizeBilinear", "ResizeBilinearGrad")
    resize(g, "ResizeNearestNeighbor", "ResizeNearestNeighborGrad")
    resize(g, "ResizeArea")
    crop_and_resize(g)
    adjust_contrast(g)
    nms(g)
