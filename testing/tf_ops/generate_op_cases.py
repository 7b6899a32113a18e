"""Generates the op differential: oracle cases for every op stepflow registers.

For each op in the registered-ops JSON (//testing/tf_oracle:registered_ops),
this writes oracle cases (testing/tf_oracle/README.md) under
OUT_DIR/<Op>/<case>/, named "ops/<Op>/<case>", and records TensorFlow's
result of each in <case>/expected with tf_oracle.run_case. The graphs are
built in TensorFlow's graph mode from tf.raw_ops and tf.compat.v1 APIs;
inputs are placeholders fed with fixed-seed NumPy values, so shapes, axes
and sizes are runtime values unless a case needs them static (gradients).

Per op the cases cover the dtypes either system's CPU kernels accept (a
dtype only one of them accepts is a case too: the error codes must agree),
scalar, empty and broadcast shapes, the attr variants, inputs TensorFlow
rejects, and for differentiable ops the graph tf.gradients builds for a
scalar function of the op's output, so the gradient ops run the way
TensorFlow's training graphs use them. Ops no TensorFlow-written GraphDef
can hold are listed with a reason in exempt_ops.txt beside this file.

Usage (the interpreter is $STEPFLOW_TF_PYTHON, tools/install_tf.sh):
  generate_op_cases.py OUT_DIR --ops_json=FILE [--golden] [--only=Op1,Op2]

--golden writes only the compact subset meant to be committed
(testing/tf_goldens/ops): one to three small cases per op (a few more where
they hold a fix, EXTRA_GOLDEN); exempt ops get none.
Exit status: 0, or 1 when a registered op that is not exempt got no case or
a case could not be built.

The cases live in modules beside this one, one per op family: ops_math.py,
ops_math_special.py, ops_linalg.py, ops_nn.py, ops_conv.py, ops_pooling.py,
ops_norm.py, ops_image.py, ops_array.py, ops_array_layout.py, ops_bincount.py,
ops_state.py,
ops_training.py, ops_scatter.py, ops_tensor_array.py, ops_debug.py,
ops_random.py, ops_rnn.py, ops_control_flow.py, ops_io.py, ops_strings.py,
ops_parsing.py and ops_static_shapes.py (known shapes for shape inference),
over op_case_lib.py (Spec,
Ctx, Generator).
"""

import argparse
import json
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
# The modules beside this file, also under Bazel's runfiles (where Python
# would put the source directory behind the script's symlink first).
sys.path.insert(0, _HERE)

import op_case_lib  # noqa: E402  (first: sets TensorFlow's environment)
import ops_array  # noqa: E402
import ops_array_layout  # noqa: E402
import ops_bincount  # noqa: E402
import ops_checkpoint_v1  # noqa: E402
import ops_control_flow  # noqa: E402
import ops_conv  # noqa: E402
import ops_debug  # noqa: E402
import ops_functions  # noqa: E402
import ops_image  # noqa: E402
import ops_io  # noqa: E402
import ops_linalg  # noqa: E402
import ops_math  # noqa: E402
import ops_math_special  # noqa: E402
import ops_nn  # noqa: E402
import ops_parsing  # noqa: E402
import ops_norm  # noqa: E402
import ops_pooling  # noqa: E402
import ops_rnn  # noqa: E402
import ops_random  # noqa: E402
import ops_scatter  # noqa: E402
import ops_shapes  # noqa: E402
import ops_state  # noqa: E402
import ops_static_shapes  # noqa: E402
import ops_strings  # noqa: E402
import ops_tensor_array  # noqa: E402
import ops_training  # noqa: E402


def generate(g):
    """Every family, for the ops it covers."""
    for op in ops_math.UNARY:
        ops_math.unary(g, op)
    for op in ops_math.BINARY:
        ops_math.binary(g, op)
    ops_math.logical_not(g)
    for op in ops_math.REDUCTIONS:
        ops_math.reduction(g, op)
    for op in ("ArgMax", "ArgMin"):
        ops_math.argminmax(g, op)
    ops_math.matmul(g)
    ops_math.batch_matmul(g, "BatchMatMul")
    ops_math.batch_matmul(g, "BatchMatMulV2")
    ops_nn.bias_add(g)
    ops_nn.bias_add_grad(g)
    ops_nn.l2loss(g)
    ops_nn.softmax(g, "Softmax")
    ops_nn.softmax(g, "LogSoftmax")
    ops_nn.softmax_xent(g)
    ops_nn.sparse_xent(g)
    ops_conv.convolutions(g)
    ops_pooling.pooling(g)
    ops_norm.batch_norm(g)
    ops_norm.lrn(g)
    ops_image.image(g)
    ops_math.cumsum(g)
    ops_math.cast(g)
    for op in ("Identity", "Snapshot", "StopGradient", "PreventGradient"):
        ops_array.identity_like(g, op)
    ops_array.identity_n(g)
    ops_array.shape_ops(g)
    ops_array.reshape(g)
    ops_array.expand_dims(g)
    ops_array.squeeze(g)
    ops_array.transpose(g)
    ops_array.concat(g)
    ops_array.pack_unpack(g)
    ops_array.split(g)
    ops_array.slice_op(g)
    ops_array.strided_slice(g)
    ops_array.tile(g)
    # TileGrad: exempt, and no live case either (exempt_ops.txt): TensorFlow
    # runs it in no GraphDef, while stepflow runs it for old graphs.
    ops_array.fill(g)
    ops_array.range_op(g)
    ops_array.one_hot(g)
    ops_array.gather(g)
    ops_array.dynamic_stitch(g)
    ops_math.select(g, "Select")
    ops_math.select(g, "SelectV2")
    ops_math.add_n(g)
    ops_array.broadcast_args(g)
    ops_array.broadcast_gradient_args(g)
    ops_io.string_join(g)
    ops_io.static_regex_full_match(g)
    ops_array.like(g, "ZerosLike")
    ops_array.like(g, "OnesLike")
    for op in ops_math.CWISE_GRADS:
        ops_math.cwise_grad(g, op)
    ops_array.placeholders(g)
    ops_array.const(g)
    ops_control_flow.no_op_and_trigger(g)
    ops_state.ref_variables(g)
    ops_state.resource_variables(g)
    ops_state.training(g)
    ops_training.optimizers(g)
    ops_scatter.scatters(g)
    ops_scatter.scatter_nds(g)
    ops_debug.debug(g)
    ops_debug.accumulate(g)
    ops_tensor_array.tensor_arrays(g)
    ops_tensor_array.stacks(g)
    ops_tensor_array.tensor_lists(g)
    ops_random.random_ops(g)
    ops_control_flow.control_flow(g)
    ops_io.checkpoints(g)
    ops_checkpoint_v1.checkpoints_v1(g)
    ops_control_flow.internal(g)
    ops_functions.calls(g)
    ops_functions.conds(g)
    ops_functions.cases(g)
    ops_functions.whiles(g)
    ops_functions.unlowered(g)
    ops_array_layout.pad(g)
    ops_array_layout.strided_slice_grad(g)
    ops_array_layout.invert_permutation(g)
    ops_array_layout.concat_offset(g)
    ops_array_layout.concat_legacy(g)
    ops_array_layout.broadcast_to(g)
    ops_array_layout.reverse(g)
    ops_array_layout.roll(g)
    ops_array_layout.bitcast(g)
    ops_array_layout.where(g)
    ops_array_layout.topk(g)
    ops_array_layout.unique(g)
    ops_array_layout.segments(g)
    ops_array_layout.gather_scatter_nd(g)
    ops_array_layout.reverse_sequence(g)
    ops_array_layout.space_batch(g)
    ops_array_layout.space_depth(g)
    ops_array_layout.matrix_band(g)
    ops_array_layout.matrix_diag(g)
    ops_bincount.bincount(g)
    ops_bincount.dense_bincount(g)
    ops_rnn.lstm_block_cell(g)
    ops_rnn.gru_block_cell(g)
    ops_rnn.block_lstm(g)
    ops_math_special.generate(g)
    ops_linalg.generate(g)
    ops_shapes.generate(g)
    ops_strings.generate(g)
    ops_parsing.generate(g)
    ops_static_shapes.random_ops(g)
    ops_static_shapes.string_ops(g)
    ops_static_shapes.list_ops(g)
    ops_static_shapes.tensor_array_ops(g)


def read_exemptions(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                op, _, reason = line.partition(" ")
                out[op] = reason.strip()
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--ops_json", required=True,
                        help="output of //testing/tf_oracle:registered_ops")
    parser.add_argument("--golden", action="store_true",
                        help="only the compact subset meant to be committed")
    parser.add_argument("--only", default="", help="comma-separated op names")
    args = parser.parse_args(argv)
    with open(args.ops_json) as f:
        ops = {e["op"]: e for e in json.load(f)}
    only = [o for o in args.only.split(",") if o]
    exempt = read_exemptions(os.path.join(_HERE, "exempt_ops.txt"))
    g = op_case_lib.Generator(args.out_dir, ops, args.golden, only, exempt)
    start = time.time()
    generate(g)
    elapsed = time.time() - start
    missing = [op for op in sorted(ops) if g.wants(op) and op not in g.counts
               and op not in exempt]
    extra = sorted(op for op in g.counts if op not in ops)
    total = sum(g.counts.values())
    print("generate_op_cases: %d cases for %d ops in %.1fs (%s)" % (
        total, len(g.counts), elapsed,
        ", ".join("%s %d" % kv for kv in sorted(g.codes.items()))))
    if extra:
        print("cases for ops stepflow does not register: " + ", ".join(extra))
    for line in g.failures:
        print("FAILED " + line)
    if missing:
        print("registered ops with no case and no exemption: " + ", ".join(missing))
    return 1 if g.failures or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
