"""Op cases for the histograms: Bincount and DenseBincount (counts and
weighted sums over [0, size), binary_output, values past size ignored, the
inputs TensorFlow rejects).

Each function adds one family's cases to a Generator (op_case_lib).
"""

from op_case_lib import DTYPES, raw
import numpy as np


def _weights(c, t, shape):
    if shape is None:
        return c.feed(np.zeros([0], DTYPES[t].as_numpy_dtype), name="weights")
    return c.input(DTYPES[t], shape, kind="small", name="weights")


def bincount(g):
    op = "Bincount"

    def bc(c, arr, size, t="float", wshape=None):
        return raw.Bincount(arr=c.feed(np.array(arr, np.int32), name="arr"),
                            size=c.feed(np.array(size, np.int32), name="size"),
                            weights=_weights(c, t, wshape))

    arr = [[1, 3, 3], [0, 7, 1]]
    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: bc(c, arr, 5, t, [2, 3]),
              golden=(t == "float"))
        g.add(op, "counts_" + t, lambda c, t=t: bc(c, arr, 5, t))
    g.add(op, "flat_weights", lambda c: bc(c, arr, 4, "double", [6]))
    g.add(op, "size_zero", lambda c: bc(c, arr, 0))
    g.add(op, "empty_arr", lambda c: bc(c, np.zeros([0], np.int32), 3))
    g.add(op, "negative_value", lambda c: bc(c, [1, -1], 3), golden=True)
    g.add(op, "negative_size", lambda c: bc(c, [1], -2))
    g.add(op, "size_rank1", lambda c: bc(c, [1], [2]))
    g.add(op, "weights_size_mismatch", lambda c: bc(c, [1, 2], 3, "int32", [3]))


def dense_bincount(g):
    op = "DenseBincount"

    def db(c, x, size, t="float", ti=np.int32, wshape=None, binary=False):
        return raw.DenseBincount(input=c.feed(np.array(x, ti), name="input"),
                                 size=c.feed(np.array(size, ti), name="size"),
                                 weights=_weights(c, t, wshape),
                                 binary_output=binary)

    x1 = [2, 0, 4, 2, 9, 2]
    x2 = [[1, 1, 3], [0, 5, 3]]
    for t in g.types(op):
        for ti in (np.int32, np.int64):
            tn = np.dtype(ti).name
            g.add(op, "dtype_%s_%s" % (t, tn),
                  lambda c, t=t, ti=ti: db(c, x2, 4, t, ti, [2, 3]),
                  golden=(t == "float" and ti == np.int32))
        g.add(op, "rank1_" + t, lambda c, t=t: db(c, x1, 5, t, wshape=[6]))
        g.add(op, "binary_" + t, lambda c, t=t: db(c, x2, 4, t, wshape=[2, 3], binary=True))
    g.add(op, "counts_rank1", lambda c: db(c, x1, 3))
    g.add(op, "counts_rank2_binary", lambda c: db(c, x2, 6, binary=True), golden=True)
    g.add(op, "scalar_input", lambda c: db(c, 1, 3))
    g.add(op, "empty_rows", lambda c: db(c, np.zeros([0, 3]), 3))
    g.add(op, "size_zero", lambda c: db(c, x2, 0, ti=np.int64))
    g.add(op, "negative_value", lambda c: db(c, [[1, -3]], 3), golden=True)
    g.add(op, "negative_size", lambda c: db(c, x1, -1))
    g.add(op, "size_rank1", lambda c: db(c, x1, [3]))
    g.add(op, "rank3", lambda c: db(c, [[[1]]], 3))
    g.add(op, "weights_shape_mismatch", lambda c: db(c, x2, 3, wshape=[6]))
