"""TensorFlow's peer of benchmarks/conv_benchmark.cc: the same convolution
graphs (the table below is benchmarks/conv_shapes.h's) timed in a
tf.compat.v1.Session, written as google-benchmark JSON so that run_all.sh
and report.py read it like the C++ rows.

  $STEPFLOW_TF_PYTHON benchmarks/conv_tf_peer.py OUT.json [--min_time=S]
      [--repetitions=N]

Rows BM_TensorFlowConv/shape:<i>/threads:<t>: one Session.run targeting the
convolution of float constants (nothing fed or fetched), with
intra_op_parallelism_threads = t and inter_op_parallelism_threads = 1, in
TensorFlow's default configuration (oneDNN kernels on x86; grappler on, but
a single op of constants leaves it nothing to change: constant folding is
off so the convolution itself runs every call). Real time per call, in
milliseconds, and `gflops` as the C++ rows count them.
"""

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import rewriter_config_pb2  # noqa: E402

# name, op, batch, height, width, in_depth, filter, out_depth, stride
SHAPES = [
    ("conv3x3_56x56x64", "Conv2D", 8, 56, 56, 64, 3, 64, 1),
    ("conv1x1_28x28x128to256", "Conv2D", 8, 28, 28, 128, 1, 256, 1),
    ("conv7x7s2_224x224x3", "Conv2D", 4, 224, 224, 3, 7, 64, 2),
    ("depthwise3x3_56x56x128", "DepthwiseConv2dNative", 8, 56, 56, 128, 3, 1, 1),
    ("backprop_input_3x3_56x56x64", "Conv2DBackpropInput", 8, 56, 56, 64, 3, 64, 1),
    ("backprop_filter_3x3_56x56x64", "Conv2DBackpropFilter", 8, 56, 56, 64, 3, 64, 1),
]
THREADS = (1, 2)


def build(shape):
    name, op, n, h, w, c, f, k, s = shape
    rng = np.random.RandomState(0)
    oh, ow = -(-h // s), -(-w // s)
    out_depth = c * k if op == "DepthwiseConv2dNative" else k
    x = tf.constant(rng.uniform(-0.5, 0.5, (n, h, w, c)).astype(np.float32))
    fil = tf.constant(rng.uniform(-0.5, 0.5, (f, f, c, k)).astype(np.float32))
    dy = tf.constant(rng.uniform(-0.5, 0.5, (n, oh, ow, out_depth)).astype(np.float32))
    strides = [1, s, s, 1]
    raw = tf.raw_ops
    if op == "Conv2D":
        y = raw.Conv2D(input=x, filter=fil, strides=strides, padding="SAME")
    elif op == "DepthwiseConv2dNative":
        y = raw.DepthwiseConv2dNative(input=x, filter=fil, strides=strides,
                                      padding="SAME")
    elif op == "Conv2DBackpropInput":
        y = raw.Conv2DBackpropInput(input_sizes=[n, h, w, c], filter=fil,
                                    out_backprop=dy, strides=strides,
                                    padding="SAME")
    else:
        y = raw.Conv2DBackpropFilter(input=x, filter_sizes=[f, f, c, k],
                                     out_backprop=dy, strides=strides,
                                     padding="SAME")
    return y.op, 2.0 * n * oh * ow * f * f * c * k


def time_shape(index, threads, min_time, repetitions):
    graph = tf.Graph()
    with graph.as_default():
        op, flops = build(SHAPES[index])
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=1)
    config.graph_options.rewrite_options.constant_folding = (
        rewriter_config_pb2.RewriterConfig.OFF)
    rows = []
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        sess.run(op)  # warm-up
        for _ in range(repetitions):
            iters, start = 0, time.perf_counter()
            while True:
                sess.run(op)
                iters += 1
                elapsed = time.perf_counter() - start
                if elapsed >= min_time:
                    break
            per_call = elapsed / iters
            rows.append({
                "name": "BM_TensorFlowConv/shape:%d/threads:%d/real_time" % (index, threads),
                "run_name": "BM_TensorFlowConv/shape:%d/threads:%d/real_time" % (index, threads),
                "run_type": "iteration", "iterations": iters,
                "real_time": per_call * 1e3, "cpu_time": per_call * 1e3,
                "time_unit": "ms", "label": SHAPES[index][0],
                "gflops": flops / per_call * 1e-9,
            })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--min_time", type=float, default=0.5)
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for i in range(len(SHAPES)):
        for t in THREADS:
            rows.extend(time_shape(i, t, args.min_time, args.repetitions))
    with open(args.out, "w") as f:
        json.dump({"context": {"tensorflow": tf.__version__,
                               "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")},
                   "benchmarks": rows}, f, indent=1)
    for r in rows:
        print("%-50s %-32s %9.3f ms %8.2f GFLOP/s" % (r["name"], r["label"],
                                                   r["real_time"], r["gflops"]))


if __name__ == "__main__":
    main()
