#!/usr/bin/env bash
# TensorFlow's own client on a cluster with stepflow in it: two tasks on
# loopback and TensorFlow's Python tf.compat.v1.Session("grpc://<task 0>")
# (TensorFlow's GrpcSession speaking /tensorflow.MasterService/* to task 0)
# running tf_client_program.py: a linear regression with w on task 1 and b
# on task 0 trained by GradientDescent, a Saver save + restore, partial
# runs, make_callable, FULL_TRACE step stats, a missing feed and a step past
# RunOptions.timeout_in_ms. The same program in a local TensorFlow session
# is the reference: the trained values, the restored values, the partial
# runs and the callable's results must match it; the error types must be
# TensorFlow's (InvalidArgumentError, DeadlineExceededError); the step
# stats must show w and its update on task 1, b and the math on task 0.
# Then the zoo's MLP (Adam, 20 steps, its first layer on task 1) must give
# every step's loss of the local run.
#
#   stepflow      both tasks are stepflow grpc_servers (stepflow's master)
#   tf_master     task 0 is a TensorFlow server (TensorFlow's master and a
#                 TensorFlow worker), task 1 a stepflow grpc_server
#                 (stepflow's worker): tensors cross between the runtimes
#   stepflow_master  task 0 is a stepflow grpc_server (stepflow's master),
#                 task 1 a TensorFlow server
#
# Skips (exit 0, with a message) without STEPFLOW_TF_PYTHON.
set -euo pipefail

mode="$1"
server="$2"
tf_server="$3"
program="$4"
zoo_models="$(cd "$(dirname "$6")" && pwd)"
source "$(dirname "$0")/server_test_lib.sh"
source "$5"
tf_python_or_skip

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
p0=$(free_port)
p1=$(free_port)
cluster="worker=127.0.0.1:$p0,127.0.0.1:$p1"

s0=""
s1=""
cleanup() { kill -9 $s0 $s1 2>/dev/null || true; }
trap cleanup EXIT
# start_task KIND INDEX: KIND is stepflow or tensorflow; sets s<INDEX>.
start_task() {
  if [ "$1" = stepflow ]; then
    "$server" --cluster="$cluster" --task="$2" >"$tmp/s$2.log" 2>&1 &
  else
    "$TF_PYTHON" "$tf_server" "127.0.0.1:$p0,127.0.0.1:$p1" "$2" \
      >"$tmp/s$2.log" 2>&1 &
  fi
  eval "s$2=$!"
}
case "$mode" in
  stepflow) start_task stepflow 0; start_task stepflow 1 ;;
  tf_master) start_task tensorflow 0; start_task stepflow 1 ;;
  stepflow_master) start_task stepflow 0; start_task tensorflow 1 ;;
  *) echo "FAIL: unknown mode '$mode'"; exit 1 ;;
esac
await_listening "$tmp/s0.log" 600
await_listening "$tmp/s1.log" 600

mkdir -p "$tmp/ckpt"
"$TF_PYTHON" "$program" local "$tmp/ckpt" "$zoo_models" >"$tmp/local.json" 2>"$tmp/local.err" ||
  { echo "FAIL: the local TensorFlow run failed"; cat "$tmp/local.err"; exit 1; }
timeout 400 "$TF_PYTHON" "$program" "grpc://127.0.0.1:$p0" "$tmp/ckpt" "$zoo_models" \
    >"$tmp/remote.json" 2>"$tmp/remote.err" ||
  { echo "FAIL: TensorFlow's client on the stepflow cluster failed";
    tail -40 "$tmp/remote.err"; echo "--- task 0"; tail -20 "$tmp/s0.log";
    echo "--- task 1"; tail -20 "$tmp/s1.log"; exit 1; }
echo "local:  $(cat "$tmp/local.json")"
echo "remote: $(cat "$tmp/remote.json")"

python3 - "$tmp/local.json" "$tmp/remote.json" <<'PY'
import json, sys
local = json.load(open(sys.argv[1]))
remote = json.load(open(sys.argv[2]))
failures = []

def check(ok, what):
  print(("ok:   " if ok else "FAIL: ") + what)
  if not ok:
    failures.append(what)

def close(a, b, tol=1e-5):
  if isinstance(a, list):
    return isinstance(b, list) and len(a) == len(b) and all(
        close(x, y, tol) for x, y in zip(a, b))
  return abs(a - b) <= tol * max(1.0, abs(a))

for key in ("w", "b", "loss_first", "loss_last", "prun_r1", "prun_r2",
            "callable", "clobbered", "mlp_losses"):
  check(close(local[key], remote[key]),
        "%s: cluster %s, local TensorFlow %s" % (key, remote[key], local[key]))
check(close([remote["w"], remote["b"]], remote["restored"], 0),
      "Saver restored the saved values %s" % remote["restored"])
check(remote["missing_feed"] == local["missing_feed"] == "InvalidArgumentError",
      "a missing feed raises %s" % remote["missing_feed"])
check("'y'" in remote.get("missing_feed_message", ""),
      "the missing-feed error names y")
check(remote["deadline"] == "DeadlineExceededError",
      "a step past timeout_in_ms raises %s" % remote["deadline"])
check(remote["after_errors"] == 2.0, "the session runs on after the errors")
tasks = {d.split("/device:")[0] for d in remote["trace_devices"]}
check(tasks >= {"/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"},
      "FULL_TRACE step stats from both tasks: %s" % sorted(tasks))
t0, t1 = "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"
for node, task in (("w", t1), ("GradientDescent/update_w/ApplyGradientDescent", t1),
                   ("b", t0), ("GradientDescent/update_b/ApplyGradientDescent", t0),
                   ("mul", t0), ("add", t0)):
  ran = remote["trace_tasks"].get(node)
  check(ran == task, "step stats: %s ran on %s (want %s)" % (node, ran, task))
check(len(local["mlp_losses"]) == 20 and
      local["mlp_losses"][-1] < local["mlp_losses"][0],
      "the local MLP trains: loss %s -> %s" % (local["mlp_losses"][0],
                                              local["mlp_losses"][-1]))
check(remote["mlp_devices"] == ["/job:worker/task:0", "/job:worker/task:1"],
      "the MLP spans both tasks: %s" % remote["mlp_devices"])
sys.exit(1 if failures else 0)
PY

if [ "$mode" = stepflow ]; then
  kill -TERM "$s0" "$s1"
  rc0=0; rc1=0
  wait "$s0" || rc0=$?
  wait "$s1" || rc1=$?
  s0=""; s1=""
  [ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] || {
    echo "FAIL: server exit codes $rc0 $rc1"; cat "$tmp"/s*.log; exit 1; }
fi
echo PASS
