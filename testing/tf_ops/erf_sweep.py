"""TensorFlow's float erf and erfc over a sweep of the whole float range,
for //testing/tf_ops:erf_float_sweep_test.

  $STEPFLOW_TF_PYTHON testing/tf_ops/erf_sweep.py OUT [--dense]

Writes one line per argument, `x erf(x) erfc(x)` as the hex bits of the
float32 values, x in increasing bit-pattern order per sign. The arguments:
+-0, +-inf, NaN, the smallest and largest subnormals and normals and the
largest finite floats; bit patterns spread evenly over every exponent of
both signs (every 2^21st pattern, or with --dense every 2^13th); and a
grid over [-10.5, 10.5], where neither function is a constant (2,001
points, or with --dense every 2^11th pattern and every 2^8th from 0.25 on), plus the floats next to the
thresholds 0.5 and 10.1 of stepflow's implementation. Without --dense
it is the committed golden (testing/tf_goldens/erf/erf_float_sweep.txt,
about 4,100 lines); --dense is the live test's (about 1.6 million).
"""

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def arguments(dense):
    f32 = np.float32
    specials = [0.0, np.inf, np.nan, 1e-45, 1.1754942e-38, 1.17549435e-38,
                3.4028235e38]
    bits = [np.array(specials, f32).view(np.uint32)]
    step = 1 << (13 if dense else 21)
    bits.append(np.arange(0, 0x7f800000, step, dtype=np.uint32))
    if dense:
        lo = np.array([0.25], f32).view(np.uint32)[0]
        hi = np.array([10.5], f32).view(np.uint32)[0]
        bits.append(np.arange(0, hi, 1 << 11, dtype=np.uint32))
        bits.append(np.arange(lo, hi, 1 << 8, dtype=np.uint32))
    else:
        grid = np.linspace(0, 10.5, 1001, dtype=f32)
        bits.append(grid.view(np.uint32))
    for t in (0.5, 10.1):
        center = np.array([t], f32).view(np.uint32)[0]
        bits.append(np.arange(center - 4, center + 5, dtype=np.uint32))
    positive = np.unique(np.concatenate(bits))
    # Both signs (NaN once).
    nan = np.array([np.nan], f32).view(np.uint32)[0]
    negative = positive[positive != nan] | np.uint32(0x80000000)
    return np.concatenate([positive, negative]).view(f32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--dense", action="store_true")
    args = parser.parse_args()
    x = arguments(args.dense)
    erf = tf.math.erf(x).numpy()
    erfc = tf.math.erfc(x).numpy()
    columns = [a.view(np.uint32) for a in (x, erf, erfc)]
    with open(args.out, "w") as f:
        f.write("# x erf(x) erfc(x): float32 bits from TensorFlow %s\n" %
                tf.__version__)
        for row in zip(*columns):
            f.write("%08x %08x %08x\n" % row)
    print("erf_sweep: %d arguments to %s" % (len(x), args.out))


if __name__ == "__main__":
    main()
