#!/usr/bin/env bash
# A cluster configured the way TensorFlow users configure one: three
# grpc_server processes — chief, ps and worker, one task each — that get
# their cluster and task only from the TF_CONFIG environment variable (no
# --cluster, --job or --task). run_graph, through grpc://<chief>, trains
# examples/linear_regression.pbtxt with its variables requested on
# /job:ps/task:0 and the forward product on /job:worker/task:0, as
# `with tf.device("/job:ps/task:0")` would place them:
#   - w and b end within 1e-4 of an independent float64 reference of the
#     same gradient descent (and near 0.1, 0.3);
#   - the master (chief) logs the variables and their updates on
#     /job:ps/replica:0/task:0, wx on /job:worker/replica:0/task:0, and the
#     unplaced math on its own task /job:chief/replica:0/task:0 (as
#     TensorFlow's master puts unplaced nodes on its own task); through
#     the worker's address they go to the worker instead.
# Then a bad TF_CONFIG (not JSON, an unknown task type, an index out of
# range) makes grpc_server exit 1 with InvalidArgument saying which.
set -euo pipefail

server="$1"
run_graph="$2"
graph="$3"
source "$(dirname "$0")/server_test_lib.sh"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

pc=$(free_port)
pp=$(free_port)
pw=$(free_port)
cluster="{\"chief\": [\"127.0.0.1:$pc\"], \"ps\": [\"127.0.0.1:$pp\"], \"worker\": [\"127.0.0.1:$pw\"]}"

pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT

# Starts the task of type $1 (index 0) with TF_CONFIG alone; log in
# $tmp/$1.log.
start_task() {
  TF_CONFIG="{\"cluster\": $cluster, \"task\": {\"type\": \"$1\", \"index\": 0}}" \
    "$server" >"$tmp/$1.log" 2>&1 &
  pids+=($!)
}
for job in chief ps worker; do start_task $job; done
for job in chief ps worker; do await_listening "$tmp/$job.log"; done
grep -q "/job:ps/replica:0/task:0 listening on 127.0.0.1:$pp" "$tmp/ps.log" ||
  { echo "FAIL: ps log"; cat "$tmp/ps.log"; exit 1; }

xs=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%.2f", (i ? "," : ""), i / 20 }')
ys=$(awk 'BEGIN { for (i = 0; i < 20; i++) printf "%s%.3f", (i ? "," : ""), 0.1 * i / 20 + 0.3 }')
steps=200
"$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$pc" \
  --device="w=/job:ps/task:0,b=/job:ps/task:0,wx=/job:worker/task:0" \
  --log_device_placement --init=init --target=train --steps=$steps \
  --fetch=w,b "x=$xs" "y=$ys" >"$tmp/run.out" 2>"$tmp/run.err" ||
  { echo "FAIL: run_graph failed"; cat "$tmp/run.err"; exit 1; }
cat "$tmp/run.out"

last_value() {
  grep "^$1 = " "$tmp/run.out" | tail -1 | sed -e "s/^$1 = //" -e 's/[][]//g'
}
w=$(last_value w)
b=$(last_value b)
# The same gradient descent (learning rate 0.5, the graph's), in float64.
python3 - "$w" "$b" "$xs" "$ys" $steps <<'PY' || exit 1
import sys
w_got, b_got = float(sys.argv[1]), float(sys.argv[2])
xs = [float(v) for v in sys.argv[3].split(",")]
ys = [float(v) for v in sys.argv[4].split(",")]
w = b = 0.0
for _ in range(int(sys.argv[5])):
    err = [w * x + b - y for x, y in zip(xs, ys)]
    gw = sum(2 * e * x for e, x in zip(err, xs)) / len(xs)
    gb = sum(2 * e for e in err) / len(xs)
    w, b = w - 0.5 * gw, b - 0.5 * gb
print("reference: w = %.6f, b = %.6f; cluster: w = %s, b = %s" %
      (w, b, sys.argv[1], sys.argv[2]))
if abs(w_got - w) > 1e-4 or abs(b_got - b) > 1e-4:
    sys.exit("FAIL: the cluster's w, b differ from the reference")
if abs(w - 0.1) > 1e-2 or abs(b - 0.3) > 1e-2:
    sys.exit("FAIL: the reference did not converge")
PY

expect_placed() {
  grep -q "^$1: ([A-Za-z0-9]*): /job:$2/replica:0/task:0/" "$tmp/chief.log" ||
    { echo "FAIL: $1 not placed on /job:$2/task:0"; cat "$tmp/chief.log"; exit 1; }
}
expect_placed w ps
expect_placed b ps
expect_placed update_w ps
expect_placed update_b ps
expect_placed wx worker
expect_placed pred chief
expect_placed grad_w chief
echo "placed: variables and updates on ps, wx on worker, the rest on chief"

# Through the worker's master, the unplaced nodes go to the worker's own
# task, not to the first job in sorted order (chief) — TensorFlow 2.21 does
# the same with tf.distribute.Server tasks.
"$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$pw" \
  --device="w=/job:ps/task:0,b=/job:ps/task:0" --log_device_placement \
  --init=init --target=train --fetch=w "x=$xs" "y=$ys" \
  >"$tmp/run2.out" 2>"$tmp/run2.err" ||
  { echo "FAIL: run_graph through the worker failed"; cat "$tmp/run2.err"; exit 1; }
grep -q "^pred: ([A-Za-z0-9]*): /job:worker/replica:0/task:0/" "$tmp/worker.log" ||
  { echo "FAIL: pred not on the worker's own task"; cat "$tmp/worker.log"; exit 1; }
grep -q "^w: ([A-Za-z0-9]*): /job:ps/replica:0/task:0/" "$tmp/worker.log" ||
  { echo "FAIL: w not on ps"; cat "$tmp/worker.log"; exit 1; }
echo "through the worker: unplaced nodes on /job:worker/task:0"

# A bad TF_CONFIG: exit 1, InvalidArgument saying what is wrong.
expect_refused() {
  local config="$1" want="$2" rc=0
  TF_CONFIG="$config" "$server" >"$tmp/bad.log" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] && grep -q "INVALID_ARGUMENT" "$tmp/bad.log" &&
    grep -qF "$want" "$tmp/bad.log" ||
    { echo "FAIL: TF_CONFIG '$config': exit $rc, want 1 and '$want'";
      cat "$tmp/bad.log"; exit 1; }
  echo "refused: $(cat "$tmp/bad.log")"
}
expect_refused "{\"cluster\": $cluster, \"task\": " "TF_CONFIG: not a JSON object"
expect_refused "{\"cluster\": $cluster, \"task\": {\"type\": \"evaluator\", \"index\": 0}}" \
  "task type 'evaluator' is not a job of the cluster (chief, ps, worker)"
expect_refused "{\"cluster\": $cluster, \"task\": {\"type\": \"ps\", \"index\": 1}}" \
  "task index 1 is out of range: job ps has tasks {0}"

kill -TERM "${pids[@]}"
for p in "${pids[@]}"; do
  wait "$p" || { echo "FAIL: a server exited non-zero"; cat "$tmp"/*.log; exit 1; }
done
trap - EXIT
echo PASS
