"""Op cases for the convolutions: Conv2D, Conv3D, DepthwiseConv2dNative and
their input and filter gradients (Conv2DBackpropInput/Filter,
Conv3DBackpropInputV2/FilterV2, DepthwiseConv2dNativeBackpropInput/Filter).

Each function adds one family's cases to a Generator (op_case_lib): every
dtype, padding modes (SAME, VALID, EXPLICIT), strides, dilations, grouped
Conv2D, 1x1 filters, empty batches, the gradients tf.gradients builds, and
the inputs and attrs TensorFlow's CPU kernels refuse (channels-first data,
batch strides, dilated gradients, mismatched shapes).

half and bfloat16 cases of the GEMM-based ops stay small (one Eigen block):
TensorFlow rounds their partial sums in an order set by Eigen's blocking,
which stepflow follows only within the first block
(known_differences.txt).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw, set_attr
import numpy as np
import tensorflow as tf

F32 = "float"


def _in(c, t, shape, name, static=False):
    return c.input(DTYPES[t], shape, name=name, static=static)


def _sizes(c, dims, name, dtype=np.int32):
    return c.feed(np.array(dims, dtype), name=name)


def conv2d(g):
    op = "Conv2D"

    def conv(c, t="float", xs=(2, 5, 5, 3), fs=(3, 3, 3, 4), static=False,
             **kw):
        x = _in(c, t, xs, "input", static)
        w = _in(c, t, fs, "filter", static)
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return x, w, raw.Conv2D(input=x, filter=w, **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: conv(c, **kw)[2], golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t == "float"))
    for p in ("SAME", "VALID"):
        for s in (1, 2, 3):
            case("%s_stride%d" % (p.lower(), s), xs=(2, 7, 6, 3),
                 strides=[1, s, s, 1], padding=p)
    case("stride_2x1", strides=[1, 2, 1, 1])
    case("explicit", padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0], golden=True)
    case("explicit_stride2", padding="EXPLICIT", strides=[1, 2, 2, 1],
         explicit_paddings=[0, 0, 2, 2, 1, 0, 0, 0])
    case("dilation2", xs=(1, 7, 7, 3), dilations=[1, 2, 2, 1])
    case("dilation_2x3_valid", xs=(1, 9, 9, 3), dilations=[1, 2, 3, 1],
         padding="VALID")
    case("dilation_stride", xs=(1, 8, 8, 3), dilations=[1, 2, 2, 1],
         strides=[1, 2, 2, 1])
    case("pointwise", fs=(1, 1, 3, 5))
    case("pointwise_stride2", fs=(1, 1, 3, 5), strides=[1, 2, 2, 1])
    case("filter_larger_valid", xs=(1, 2, 2, 3), padding="VALID")
    case("filter_much_larger_valid", xs=(1, 1, 1, 3), fs=(4, 4, 3, 2),
         padding="VALID")
    case("grouped", xs=(1, 5, 5, 6), fs=(3, 3, 3, 4))
    case("grouped_3", xs=(2, 4, 4, 6), fs=(2, 2, 2, 6), strides=[1, 2, 2, 1])
    case("grouped_out_not_divisible", xs=(1, 5, 5, 6), fs=(3, 3, 3, 3))
    case("depth_not_divisible", xs=(1, 5, 5, 4), fs=(3, 3, 3, 4))
    case("empty_batch", xs=(0, 5, 5, 3))
    case("empty_spatial", xs=(1, 0, 5, 3))
    case("zero_filter", fs=(0, 3, 3, 4))
    case("zero_out_depth", fs=(3, 3, 3, 0))
    case("input_rank3", xs=(5, 5, 3))
    case("filter_rank3", fs=(3, 3, 3))
    case("larger", xs=(2, 17, 19, 8), fs=(3, 3, 8, 16))
    case("larger_stride2", xs=(1, 32, 32, 16), fs=(5, 5, 16, 8),
         strides=[1, 2, 2, 1])
    case("nchw", xs=(2, 3, 5, 5), data_format="NCHW")
    case("batch_stride", strides=[2, 1, 1, 1])
    # Large enough to be split across the Scheduler's threads.
    case("parallel", xs=(4, 24, 24, 16), fs=(3, 3, 16, 32))
    case("stride_beyond_input", strides=[1, 100, 100, 1])
    case("explicit_wide", padding="EXPLICIT", xs=(1, 2, 2, 3),
         explicit_paddings=[0, 0, 4, 3, 0, 5, 0, 0], strides=[1, 2, 3, 1])

    def grad(c, t="float", xs=(2, 5, 5, 3), fs=(3, 3, 3, 4), **kw):
        x, w, y = conv(c, t, xs, fs, static=True, **kw)
        return grads(c, [y], [x, w])
    for t in ("float", "double", "half", "bfloat16"):
        g.add(op, "grad_" + t, lambda c, t=t: grad(c, t), golden=(t == "float"))
    g.add(op, "grad_valid_stride2",
          lambda c: grad(c, xs=(2, 7, 8, 3), strides=[1, 2, 2, 1], padding="VALID"))
    g.add(op, "grad_same_stride2",
          lambda c: grad(c, xs=(2, 7, 8, 3), strides=[1, 2, 2, 1]))
    g.add(op, "grad_same_stride3",
          lambda c: grad(c, xs=(1, 10, 9, 3), strides=[1, 3, 3, 1]))
    g.add(op, "grad_explicit",
          lambda c: grad(c, padding="EXPLICIT",
                         explicit_paddings=[0, 0, 1, 0, 2, 1, 0, 0]))
    g.add(op, "grad_pointwise", lambda c: grad(c, fs=(1, 1, 3, 5)))
    g.add(op, "grad_larger", lambda c: grad(c, xs=(2, 12, 12, 8), fs=(3, 3, 8, 16)))


def conv2d_backprop_input(g):
    op = "Conv2DBackpropInput"

    def bi(c, t="float", sizes=(2, 5, 5, 3), fs=(3, 3, 3, 4), dys=(2, 5, 5, 4),
           **kw):
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return raw.Conv2DBackpropInput(
            input_sizes=_sizes(c, sizes, "input_sizes"),
            filter=_in(c, t, fs, "filter"), out_backprop=_in(c, t, dys, "dy"),
            **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: bi(c, **kw), golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t == "float"))
    case("valid_stride2", sizes=(2, 7, 8, 3), dys=(2, 3, 3, 4),
         strides=[1, 2, 2, 1], padding="VALID", golden=True)
    case("same_stride2", sizes=(2, 7, 8, 3), dys=(2, 4, 4, 4),
         strides=[1, 2, 2, 1])
    case("explicit", dys=(2, 6, 5, 4), padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 1, 1, 0, 0, 0])
    case("pointwise", fs=(1, 1, 3, 4))
    case("sizes_hw", sizes=(5, 5))
    case("empty_spatial", sizes=(2, 0, 5, 3), dys=(2, 0, 5, 4))
    case("huge_sizes", sizes=(2, 1 << 30, 1 << 30, 3), dys=(2, 5, 5, 4))
    case("empty_batch", sizes=(0, 5, 5, 3), dys=(0, 5, 5, 4))
    case("out_backprop_mismatch", dys=(2, 4, 5, 4))
    case("depth_mismatch", fs=(3, 3, 2, 4))
    case("out_depth_mismatch", dys=(2, 5, 5, 3))
    case("batch_mismatch", dys=(1, 5, 5, 4))
    case("sizes_rank2", sizes=((2, 5), (5, 3)))
    case("sizes_3", sizes=(2, 5, 5))
    case("sizes_negative", sizes=(2, -5, 5, 3))
    case("filter_rank3", fs=(3, 3, 3))
    case("dilation2", dilations=[1, 2, 2, 1])
    case("nchw", sizes=(2, 3, 5, 5), dys=(2, 4, 5, 5), data_format="NCHW")
    case("batch_stride", strides=[2, 1, 1, 1])
    case("parallel", sizes=(4, 24, 24, 16), fs=(3, 3, 16, 32),
         dys=(4, 24, 24, 32))


def conv2d_backprop_filter(g):
    op = "Conv2DBackpropFilter"

    def bf(c, t="float", xs=(2, 5, 5, 3), sizes=(3, 3, 3, 4), dys=(2, 5, 5, 4),
           **kw):
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return raw.Conv2DBackpropFilter(
            input=_in(c, t, xs, "input"),
            filter_sizes=_sizes(c, sizes, "filter_sizes"),
            out_backprop=_in(c, t, dys, "dy"), **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: bf(c, **kw), golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t in ("float", "half")))
    case("valid_stride2", xs=(2, 7, 8, 3), dys=(2, 3, 3, 4),
         strides=[1, 2, 2, 1], padding="VALID")
    case("same_stride2", xs=(2, 7, 8, 3), dys=(2, 4, 4, 4),
         strides=[1, 2, 2, 1])
    case("explicit", dys=(2, 6, 5, 4), padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 1, 1, 0, 0, 0])
    case("pointwise", sizes=(1, 1, 3, 4))
    case("larger", xs=(4, 16, 16, 8), sizes=(3, 3, 8, 16), dys=(4, 16, 16, 16))
    case("empty_batch", xs=(0, 5, 5, 3), dys=(0, 5, 5, 4))
    case("out_backprop_mismatch", dys=(2, 4, 5, 4))
    case("grouped", xs=(2, 5, 5, 6))
    case("sizes_3", sizes=(3, 3, 3))
    case("sizes_negative", sizes=(3, -3, 3, 4))
    case("huge_sizes", sizes=(1 << 20, 1 << 20, 3, 4))
    case("input_rank3", xs=(5, 5, 3))
    case("dilation2", dilations=[1, 2, 2, 1])
    case("nchw", xs=(2, 3, 5, 5), dys=(2, 4, 5, 5), data_format="NCHW")
    case("batch_stride", strides=[2, 1, 1, 1])
    case("parallel", xs=(4, 24, 24, 16), sizes=(3, 3, 16, 32),
         dys=(4, 24, 24, 32))


def depthwise(g):
    op = "DepthwiseConv2dNative"

    def dw(c, t="float", xs=(2, 5, 5, 3), fs=(3, 3, 3, 2), static=False, **kw):
        x = _in(c, t, xs, "input", static)
        w = _in(c, t, fs, "filter", static)
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return x, w, raw.DepthwiseConv2dNative(input=x, filter=w, **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: dw(c, **kw)[2], golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t in ("float", "half")))
    case("multiplier1", fs=(3, 3, 3, 1))
    case("valid_stride2", xs=(2, 7, 8, 3), strides=[1, 2, 2, 1],
         padding="VALID")
    case("same_stride3", xs=(1, 10, 9, 4), fs=(3, 3, 4, 1),
         strides=[1, 3, 3, 1])
    case("explicit", padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0])
    case("larger", xs=(2, 16, 16, 32), fs=(3, 3, 32, 1))
    case("larger_half", t="half", xs=(4, 16, 16, 32), fs=(3, 3, 32, 2))
    # One image large enough for its rows to be split across threads.
    case("parallel_batch1", xs=(1, 64, 64, 64), fs=(3, 3, 64, 1))
    case("empty_batch", xs=(0, 5, 5, 3))
    case("zero_filter_height", fs=(0, 3, 3, 2))
    case("zero_multiplier", fs=(3, 3, 3, 0))
    case("depth_mismatch", fs=(3, 3, 2, 2))
    case("input_rank3", xs=(5, 5, 3))
    case("strides_unequal", strides=[1, 2, 1, 1])
    case("batch_stride", strides=[2, 1, 1, 1])
    case("dilation2", dilations=[1, 2, 2, 1])
    case("nchw", xs=(2, 3, 5, 5), data_format="NCHW")

    def grad(c, t="float", **kw):
        x, w, y = dw(c, t, static=True, **kw)
        return grads(c, [y], [x, w])
    for t in ("float", "double", "half", "bfloat16"):
        g.add(op, "grad_" + t, lambda c, t=t: grad(c, t), golden=(t == "float"))
    g.add(op, "grad_valid_stride2",
          lambda c: grad(c, xs=(2, 7, 8, 3), strides=[1, 2, 2, 1], padding="VALID"))
    g.add(op, "grad_explicit",
          lambda c: grad(c, padding="EXPLICIT",
                         explicit_paddings=[0, 0, 2, 1, 0, 1, 0, 0]))


def depthwise_backprop(g, op):
    is_input = op.endswith("Input")
    f = getattr(raw, op)

    def call(c, t="float", xs=(2, 5, 5, 3), fs=(3, 3, 3, 2), dys=(2, 5, 5, 6),
             **kw):
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        if is_input:
            return f(input_sizes=_sizes(c, xs, "input_sizes"),
                     filter=_in(c, t, fs, "filter"),
                     out_backprop=_in(c, t, dys, "dy"), **kw)
        return f(input=_in(c, t, xs, "input"),
                 filter_sizes=_sizes(c, fs, "filter_sizes"),
                 out_backprop=_in(c, t, dys, "dy"), **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: call(c, **kw), golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t in ("float", "half")))
    case("valid_stride2", xs=(2, 7, 8, 3), dys=(2, 3, 3, 6),
         strides=[1, 2, 2, 1], padding="VALID")
    case("multiplier1", fs=(3, 3, 3, 1), dys=(2, 5, 5, 3))
    case("explicit", dys=(2, 6, 5, 6), padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 1, 1, 0, 0, 0])
    case("larger", xs=(2, 16, 16, 32), fs=(3, 3, 32, 1), dys=(2, 16, 16, 32))
    case("larger_half", t="half", xs=(4, 16, 16, 32), fs=(3, 3, 32, 1),
         dys=(4, 16, 16, 32))
    case("dilations_ignored", dilations=[1, 2, 2, 1])
    if is_input:
        # (TensorFlow's filter gradient of an empty batch is whatever its
        # output buffer held, not zeros: no case for it.)
        case("empty_batch", xs=(0, 5, 5, 3), dys=(0, 5, 5, 6))
    case("out_backprop_mismatch", dys=(2, 4, 5, 6))
    case("depth_mismatch", fs=(3, 3, 2, 2))
    case("strides_unequal", dys=(2, 3, 5, 6), strides=[1, 2, 1, 1])
    case("nchw", xs=(2, 3, 5, 5), dys=(2, 6, 5, 5), data_format="NCHW")
    if is_input:
        case("sizes_3", xs=(2, 5, 5))
    else:
        case("sizes_3", fs=(3, 3, 3))


def conv3d(g):
    op = "Conv3D"

    def conv(c, t="float", xs=(2, 4, 5, 5, 3), fs=(2, 3, 3, 3, 4),
             static=False, **kw):
        x = _in(c, t, xs, "input", static)
        w = _in(c, t, fs, "filter", static)
        kw.setdefault("strides", [1, 1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return x, w, raw.Conv3D(input=x, filter=w, **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: conv(c, **kw)[2], golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t in ("float", "half")))
    case("valid_stride2", xs=(1, 6, 7, 8, 3), strides=[1, 2, 2, 2, 1],
         padding="VALID")
    case("same_stride_mixed", xs=(1, 6, 7, 8, 3), strides=[1, 1, 2, 3, 1])
    case("pointwise", fs=(1, 1, 1, 3, 5))
    case("empty_batch", xs=(0, 4, 5, 5, 3))
    case("filter_larger_valid", xs=(1, 1, 5, 5, 3), padding="VALID")
    case("zero_filter", fs=(0, 3, 3, 3, 4))
    case("zero_out_depth", fs=(2, 3, 3, 3, 0))
    case("grouped", xs=(1, 4, 5, 5, 6))
    case("depth_not_divisible", xs=(1, 4, 5, 5, 4))
    case("input_rank4", xs=(4, 5, 5, 3))
    case("dilation2", dilations=[1, 2, 2, 2, 1])
    case("ncdhw", xs=(2, 3, 4, 5, 5), data_format="NCDHW")
    case("batch_stride", strides=[2, 1, 1, 1, 1])
    case("larger", xs=(2, 8, 8, 8, 4), fs=(3, 3, 3, 4, 8))
    case("parallel", xs=(2, 12, 12, 12, 8), fs=(3, 3, 3, 8, 16))

    def grad(c, t="float", **kw):
        x, w, y = conv(c, t, static=True, **kw)
        return grads(c, [y], [x, w])
    for t in ("float", "double", "half", "bfloat16"):
        g.add(op, "grad_" + t, lambda c, t=t: grad(c, t), golden=(t == "float"))
    g.add(op, "grad_valid_stride2",
          lambda c: grad(c, xs=(1, 6, 7, 8, 3), strides=[1, 2, 2, 2, 1],
                         padding="VALID"))


def conv3d_backprop(g, op):
    is_input = op.startswith("Conv3DBackpropInput")
    f = getattr(raw, op)

    def call(c, t="float", xs=(2, 4, 5, 5, 3), fs=(2, 3, 3, 3, 4),
             dys=(2, 4, 5, 5, 4), sizes_dtype=np.int32, **kw):
        kw.setdefault("strides", [1, 1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        if is_input:
            return f(input_sizes=_sizes(c, xs, "input_sizes", sizes_dtype),
                     filter=_in(c, t, fs, "filter"),
                     out_backprop=_in(c, t, dys, "dy"), **kw)
        return f(input=_in(c, t, xs, "input"),
                 filter_sizes=_sizes(c, fs, "filter_sizes"),
                 out_backprop=_in(c, t, dys, "dy"), **kw)

    def case(name, golden=False, **kw):
        g.add(op, name, lambda c: call(c, **kw), golden=golden)

    for t in g.types(op):
        case("dtype_" + t, t=t, golden=(t in ("float", "bfloat16")))
    case("valid_stride2", xs=(1, 6, 7, 8, 3), dys=(1, 3, 3, 3, 4),
         strides=[1, 2, 2, 2, 1], padding="VALID")
    case("same_stride2", xs=(1, 6, 7, 8, 3), dys=(1, 3, 4, 4, 4),
         strides=[1, 2, 2, 2, 1])
    case("pointwise", fs=(1, 1, 1, 3, 4))
    case("empty_batch", xs=(0, 4, 5, 5, 3), dys=(0, 4, 5, 5, 4))
    case("out_backprop_mismatch", dys=(2, 3, 5, 5, 4))
    case("depth_mismatch", fs=(2, 3, 3, 2, 4))
    case("dilation2", dilations=[1, 2, 2, 2, 1])
    case("ncdhw", xs=(2, 3, 4, 5, 5), dys=(2, 4, 4, 5, 5), data_format="NCDHW")
    if is_input:
        case("sizes_int64", sizes_dtype=np.int64)
        case("sizes_4", xs=(2, 4, 5, 5))
    else:
        case("sizes_4", fs=(2, 3, 3, 3))


def convolutions(g):
    conv2d(g)
    conv2d_backprop_input(g)
    conv2d_backprop_filter(g)
    depthwise(g)
    depthwise_backprop(g, "DepthwiseConv2dNativeBackpropInput")
    depthwise_backprop(g, "DepthwiseConv2dNativeBackpropFilter")
    conv3d(g)
    conv3d_backprop(g, "Conv3DBackpropInputV2")
    conv3d_backprop(g, "Conv3DBackpropFilterV2")
