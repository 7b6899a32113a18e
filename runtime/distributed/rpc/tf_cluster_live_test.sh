#!/usr/bin/env bash
# stepflow's client on a TensorFlow cluster: two tf.distribute.Server
# processes (TensorFlow's own gRPC master and workers, tasks 0 and 1 of job
# "worker") on loopback, and run_graph --session_target=grpc://<task 0>
# (stepflow's DistributedSession over GrpcTransport, speaking
# /tensorflow.MasterService/* to TensorFlow's master).
#
#   two_task   examples/two_task.pbtxt (z = x*x + x, the multiply on task 1):
#              z equals what a local TensorFlow session computes for the
#              same GraphDef, and the FULL_TRACE timeline TensorFlow's
#              master returns has nodes of both tasks.
#   train      with TensorFlow's linear-regression training graph beside the
#              checkout (shared/testdata/tf; skipped without it): init + 201
#              steps with w and b on task 1 reach w = 0.1, b = 0.3 within
#              1e-3, as on stepflow's own cluster
#              (distributed_training_test).
#
# Skips (exit 0, with a message) without STEPFLOW_TF_PYTHON.
set -euo pipefail

tf_server="$1"
run_graph="$2"
two_task="$3"
source "$(dirname "$0")/server_test_lib.sh"
source "$4"
tf_python_or_skip

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
p0=$(free_port)
p1=$(free_port)
addresses="127.0.0.1:$p0,127.0.0.1:$p1"
s0=""
s1=""
cleanup() { kill -9 $s0 $s1 2>/dev/null || true; }
trap cleanup EXIT
"$TF_PYTHON" "$tf_server" "$addresses" 0 >"$tmp/s0.log" 2>&1 &
s0=$!
"$TF_PYTHON" "$tf_server" "$addresses" 1 >"$tmp/s1.log" 2>&1 &
s1=$!
await_listening "$tmp/s0.log" 600
await_listening "$tmp/s1.log" 600

# --- two_task -------------------------------------------------------------
want=$("$TF_PYTHON" - "$two_task" 2>/dev/null <<'PY'
import sys
import tensorflow as tf
from google.protobuf import text_format
g = tf.compat.v1.GraphDef()
text_format.Parse(open(sys.argv[1]).read(), g)
for n in g.node:
  n.device = ""
with tf.Graph().as_default() as graph:
  tf.import_graph_def(g, name="")
  with tf.compat.v1.Session(graph=graph) as s:
    print(" ".join(repr(float(v)) for v in s.run("z:0")))
PY
)
echo "TensorFlow, local: z = $want"
"$run_graph" --graph="$two_task" --session_target="grpc://127.0.0.1:$p0" \
    --fetch=z --timeline="$tmp/two_task.json" >"$tmp/two_task.out" 2>"$tmp/two_task.err" ||
  { echo "FAIL: run_graph on the TensorFlow cluster failed"; cat "$tmp/two_task.err"; exit 1; }
cat "$tmp/two_task.out"
python3 - "$tmp/two_task.out" "$want" "$tmp/two_task.json" <<'PY'
import json, re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("z = ")][-1]
got = [float(v) for v in re.findall(r"[-0-9.e+]+", line[4:])]
want = [float(v) for v in sys.argv[2].split()]
if got != want:
  sys.exit("FAIL: z = %s, TensorFlow computes %s" % (got, want))
events = json.load(open(sys.argv[3]))["traceEvents"]
lanes = {e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"}
tasks = {l.split("/device:")[0] for l in lanes if "/job:worker" in l}
print("timeline lanes:", sorted(lanes))
if not {"/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"} <= tasks:
  sys.exit("FAIL: the timeline does not show both tasks")
print("ok: z = %s on the TensorFlow cluster, as TensorFlow computes it" % got)
PY

# --- train ----------------------------------------------------------------
testdata=$(find_tf_testdata)
graph="${testdata:+$testdata/linear_regression_train.pb}"
if [ -n "$graph" ] && [ -f "$graph" ]; then
  read -r xs ys < <(linear_regression_points)
  task1=/job:worker/replica:0/task:1
  "$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$p0" \
      --device="w=$task1,b=$task1" --init=init --target=train --fetch=w,b \
      --steps=201 "x=$xs" "y=$ys" >"$tmp/train.out" 2>"$tmp/train.err" ||
    { echo "FAIL: training on the TensorFlow cluster failed"; cat "$tmp/train.err"; exit 1; }
  tail -3 "$tmp/train.out"
  w=$(grep '^w = ' "$tmp/train.out" | tail -1 | sed -e 's/^w = //' -e 's/[][]//g')
  b=$(grep '^b = ' "$tmp/train.out" | tail -1 | sed -e 's/^b = //' -e 's/[][]//g')
  python3 -c "import sys; sys.exit(0 if abs($w - 0.1) <= 1e-3 and abs($b - 0.3) <= 1e-3 else 1)" ||
    { echo "FAIL: w = $w, b = $b; want 0.1, 0.3 within 1e-3"; exit 1; }
  echo "ok: trained on the TensorFlow cluster: w = $w, b = $b"
else
  echo "SKIP (train): TensorFlow testdata 'linear_regression_train.pb' not found"
fi
echo PASS
