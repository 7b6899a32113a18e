#!/usr/bin/env bash
# Live: placement on a {chief, ps, worker} cluster configured through
# TF_CONFIG, stepflow against TensorFlow. Both run
# examples/linear_regression.pbtxt with w and b requested on
# /job:ps/task:0 and wx on /job:worker/task:0, once through the chief's
# master and once through the worker's; every node TensorFlow's train step
# placed (tf_cluster_placement.py, in-process tf.distribute.Server tasks)
# must be where stepflow's master placed it (grpc_server processes,
# --log_device_placement). Among them: the unplaced math goes to the task
# whose master the client called, and the learning rate (a constant only
# ps's updates consume) to ps.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
server="$(runfile runtime/distributed/rpc/grpc_server)"
run_graph="$(runfile runtime/bin/run_graph)"
graph="$(runfile examples/linear_regression.pbtxt)"
source "$(runfile runtime/distributed/rpc/server_test_lib.sh)"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
requests="w=/job:ps/task:0,b=/job:ps/task:0,wx=/job:worker/task:0"

cluster_json() {
  echo "{\"chief\": [\"127.0.0.1:$1\"], \"ps\": [\"127.0.0.1:$2\"], \"worker\": [\"127.0.0.1:$3\"]}"
}

# TensorFlow.
TF_CONFIG="{\"cluster\": $(cluster_json "$(free_port)" "$(free_port)" "$(free_port)")}" \
  "$TF_PYTHON" "$(runfile runtime/distributed/rpc/tf_cluster_placement.py)" \
  "$graph" "$requests" chief,worker >"$tmp/tf.txt" 2>"$tmp/tf.err" ||
  { echo "FAIL: TensorFlow"; cat "$tmp/tf.err"; exit 1; }

# stepflow.
declare -A port=([chief]=$(free_port) [ps]=$(free_port) [worker]=$(free_port))
cluster=$(cluster_json "${port[chief]}" "${port[ps]}" "${port[worker]}")
pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for job in chief ps worker; do
  TF_CONFIG="{\"cluster\": $cluster, \"task\": {\"type\": \"$job\", \"index\": 0}}" \
    "$server" >"$tmp/$job.log" 2>&1 &
  pids+=($!)
done
for job in chief ps worker; do await_listening "$tmp/$job.log"; done
for job in chief worker; do
  "$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:${port[$job]}" \
    --device="$requests" --log_device_placement --init=init --target=train \
    --fetch=w x=0,0.5,1 y=0.3,0.35,0.4 >/dev/null 2>"$tmp/run_$job.err" ||
    { echo "FAIL: run_graph through $job"; cat "$tmp/run_$job.err"; exit 1; }
done

python3 - "$tmp" <<'PY'
import re, sys
tmp = sys.argv[1]
tf = {}
for line in open(f"{tmp}/tf.txt"):
    job, node, device = line.split()
    tf.setdefault(job, {})[node] = device
mismatches = 0
for job in ("chief", "worker"):
    before = mismatches
    placed = {}
    for line in open(f"{tmp}/{job}.log"):
        m = re.match(r"^([A-Za-z0-9_./]+): \([A-Za-z0-9_]+\): (/job:\S+)$", line.strip())
        if m:
            placed.setdefault(m.group(1), set()).add(m.group(2))
    if len(tf.get(job, {})) < 10:
        sys.exit(f"FAIL: TensorFlow reported {len(tf.get(job, {}))} nodes through {job}")
    for node, device in sorted(tf[job].items()):
        got = placed.get(node, set())
        if got != {device}:
            mismatches += 1
            print(f"through {job}: {node} on {device} in TensorFlow, {sorted(got)} in stepflow")
    print(f"through {job}: {len(tf[job]) - (mismatches - before)} of "
          f"{len(tf[job])} nodes placed as TensorFlow places them")
sys.exit(1 if mismatches else 0)
PY

kill -TERM "${pids[@]}"
for p in "${pids[@]}"; do wait "$p" || true; done
trap - EXIT
echo PASS
