#!/usr/bin/env bash
# TensorFlow's own linear-regression training graph (written by TensorFlow:
# shared/testdata/tf/linear_regression_train.pb, beside the checkout, never
# copied into it) trained on a real two-process cluster on loopback: two
# grpc_server processes (tasks 0 and 1), run_graph as the client through
# grpc://<task 0>, the variables requested on task 1 with --device (their
# Assign/ApplyGradientDescent follow them through the placer's ref-edge
# colocation) and the math on task 0.
#
#   train        init + 201 steps: w within 1e-3 of 0.1 and b of 0.3; the
#                placement log and the last step's timeline show both tasks
#                running nodes (the variables' updates on task 1, the
#                math on task 0) joined by cross-task transfers.
#   kill_worker  a long run with --timeout_ms is cut by `kill -9` of task 1:
#                run_graph exits non-zero within the step timeout plus
#                slack, with Unavailable/DeadlineExceeded/Aborted naming
#                task 1 or its address; task 1 restarted on the same port
#                serves a new session (init + steps) at once.
#
# Skips (exit 0, with a message) when the TensorFlow graph is absent.
set -euo pipefail

mode="$1"
server="$2"
run_graph="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

source "$(dirname "$0")/server_test_lib.sh"
testdata=$(find_tf_testdata)
graph="${testdata:+$testdata/linear_regression_train.pb}"
if [ -z "$graph" ] || [ ! -f "$graph" ]; then
  echo "SKIP: TensorFlow testdata 'linear_regression_train.pb' not found" \
       "(set STEPFLOW_TF_TESTDATA or put shared/testdata/tf beside the checkout)"
  exit 0
fi

two_task_cluster

read -r xs ys < <(linear_regression_points)

# run_graph on the cluster with the variables on task 1; extra flags in "$@".
train() {
  "$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$p0" \
    --device="w=$task1,b=$task1" --init=init --target=train --fetch=w,b \
    "$@" "x=$xs" "y=$ys"
}

# The last value printed for $1 in file $2 ("w = [0.1]" -> 0.1).
last_value() {
  grep "^$1 = " "$2" | tail -1 | sed -e "s/^$1 = //" -e 's/[][]//g'
}

# Exit 0 iff |$1 - $2| <= $3.
near() { python3 -c "import sys; sys.exit(0 if abs($1 - $2) <= $3 else 1)"; }

start_task 0
start_task 1
await_listening "$tmp/s0.log"
await_listening "$tmp/s1.log"

case "$mode" in
train)
  train --steps=201 --log_device_placement --timeline="$tmp/t.json" \
      >"$tmp/run.out" 2>"$tmp/run.err" ||
    { echo "FAIL: run_graph failed"; cat "$tmp/run.err"; exit 1; }
  cat "$tmp/run.out" "$tmp/run.err"
  w=$(last_value w "$tmp/run.out")
  b=$(last_value b "$tmp/run.out")
  near "$w" 0.1 1e-3 || { echo "FAIL: w = $w, want 0.1 +- 1e-3"; exit 1; }
  near "$b" 0.3 1e-3 || { echo "FAIL: b = $b, want 0.3 +- 1e-3"; exit 1; }
  echo "trained: w = $w, b = $b"

  # Placement, as the master (task 0) logged it.
  expect_placed() {
    grep -q "^$1: ([A-Za-z]*): /job:worker/replica:0/task:$2/" "$tmp/s0.log" ||
      { echo "FAIL: $1 not placed on task $2"; cat "$tmp/s0.log"; exit 1; }
  }
  expect_placed w 1
  expect_placed b 1
  expect_placed w/Assign 1
  expect_placed train/update_w/ApplyGradientDescent 1
  expect_placed train/update_b/ApplyGradientDescent 1
  expect_placed mul 0
  expect_placed gradients/mul_grad/mul 0

  # Execution, as the last step's timeline recorded it: which nodes each
  # task's device really ran, and the transfers between them.
  python3 - "$tmp/t.json" <<'EOF' || { echo "FAIL: timeline"; exit 1; }
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
lane = {e["pid"]: e["args"]["name"] for e in events
        if e["ph"] == "M" and e["name"] == "process_name"}
ran = {}
for e in events:
    if e["ph"] == "X":
        task = lane[e["pid"]].split("/device:")[0]
        ran.setdefault(task, set()).add(e["args"]["name"])
t0, t1 = "/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"
print("timeline: %d nodes on task 0, %d on task 1, %d transfers" %
      (len(ran.get(t0, ())), len(ran.get(t1, ())),
       sum(1 for e in events if e["ph"] == "f")))
want = {t1: {"train/update_w/ApplyGradientDescent",
             "train/update_b/ApplyGradientDescent", "w", "b"},
        t0: {"mul", "add", "sub", "gradients/mul_grad/mul"}}
for task, nodes in sorted(want.items()):
    missing = nodes - ran.get(task, set())
    if missing:
        sys.exit("%s did not run %s" % (task, sorted(missing)))
if not any(e["ph"] == "f" for e in events):
    sys.exit("no cross-task transfer")
EOF
  ;;

kill_worker)
  timeout_ms=2000
  train --steps=100000000 --print_every=20 --timeout_ms=$timeout_ms \
      >"$tmp/run.out" 2>"$tmp/run.err" &
  run_pid=$!
  # Mid-run: a few progress reports are out.
  for _ in $(seq 1 300); do
    grep -q "^step 60:" "$tmp/run.out" && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "^step 60:" "$tmp/run.out" ||
    { echo "FAIL: training did not get going"; cat "$tmp/run.out" "$tmp/run.err"; exit 1; }

  t0=$(now_ms)
  kill -9 "$s1"
  rc=0
  wait "$run_pid" || rc=$?
  t1=$(now_ms)
  run_pid=""
  elapsed=$((t1 - t0))
  bound=$((timeout_ms + 3000))  # The step timeout, the client's grace, slack.
  err=$(cat "$tmp/run.err")
  echo "after kill -9 of task 1: run_graph exit $rc after ${elapsed} ms (bound ${bound} ms)"
  echo "$err"
  [ "$rc" -ne 0 ] || { echo "FAIL: run_graph succeeded with task 1 dead"; exit 1; }
  [ "$elapsed" -le "$bound" ] || { echo "FAIL: took ${elapsed} ms"; exit 1; }
  echo "$err" | grep -Eq "UNAVAILABLE|DEADLINE_EXCEEDED|ABORTED" ||
    { echo "FAIL: wrong error code"; exit 1; }
  echo "$err" | grep -Eq "task:1|127\.0\.0\.1:$p1" ||
    { echo "FAIL: the error does not name task 1"; exit 1; }
  kill -0 "$s0" || { echo "FAIL: task 0 died"; cat "$tmp/s0.log"; exit 1; }

  # Task 1 comes back on the same port; a new session trains at once.
  start_task 1
  await_listening "$tmp/s1.log"
  t0=$(now_ms)
  train --steps=5 --timeout_ms=$timeout_ms >"$tmp/run2.out" 2>"$tmp/run2.err" ||
    { echo "FAIL: run_graph after the restart failed"; cat "$tmp/run2.err"; exit 1; }
  echo "after the restart: init + 5 steps in $(( $(now_ms) - t0 )) ms"
  cat "$tmp/run2.out"
  grep -q "^step 5:" "$tmp/run2.out" || { echo "FAIL: no step 5"; exit 1; }
  w=$(last_value w "$tmp/run2.out")
  [ -n "$w" ] || { echo "FAIL: no w after the restart"; exit 1; }
  ;;

*)
  echo "FAIL: unknown mode '$mode'"; exit 1
  ;;
esac

kill -TERM "$s0" "$s1"
rc0=0; rc1=0
wait "$s0" || rc0=$?
wait "$s1" || rc1=$?
s0=""; s1=""
trap - EXIT
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] || {
  echo "FAIL: server exit codes $rc0 $rc1"
  cat "$tmp"/s*.log
  exit 1
}
echo PASS
