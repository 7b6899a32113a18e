#!/usr/bin/env bash
# SIGTERM stops grpc_server in bounded time (issue 25, finding 2), each time
# with exit status 0:
#   drain:   a step in flight when the signal comes finishes within the
#            grace period and its client gets the answer, while a new
#            client is refused at once (Unavailable, "shutting down");
#   running: a step that would run for ever is cancelled after the grace
#            period and the server exits within grace + teardown;
#   wedged:  a kernel computing for ~10 s holds the only thread, so the
#            teardown (which joins it) blocks: the server still exits
#            within grace + teardown.
set -euo pipefail

server="$1"
run_graph="$2"
loop="$3"
matmul="$4"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
source "$(dirname "$0")/server_test_lib.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# start_server NAME FLAGS...: sets $port and $spid.
start_server() {
  local name="$1"
  shift
  port=$(free_port)
  "$server" --cluster="worker=127.0.0.1:$port" --task=0 --inter_op_threads=1 \
    "$@" >"$tmp/$name.server.log" 2>&1 &
  spid=$!
  pids+=("$spid")
  await_listening "$tmp/$name.server.log"
}

# stop_server NAME BOUND_MS: SIGTERM, then the server must exit 0 within
# BOUND_MS (plus 1.5 s for process exit on a loaded machine).
stop_server() {
  local name="$1" bound="$2" start rc=0 waited
  start=$(now_ms)
  kill -TERM "$spid"
  while kill -0 "$spid" 2>/dev/null; do
    waited=$(( $(now_ms) - start ))
    if [ "$waited" -gt $(( bound + 1500 )) ]; then
      echo "FAIL: $name: server still running ${waited} ms after SIGTERM"
      cat "$tmp/$name.server.log"
      exit 1
    fi
    sleep 0.05
  done
  wait "$spid" || rc=$?
  waited=$(( $(now_ms) - start ))
  echo "$name: exit status $rc after $waited ms (bound $bound ms)"
  cat "$tmp/$name.server.log"
  [ "$rc" -eq 0 ] || { echo "FAIL: $name: exit status $rc"; exit 1; }
}

# --- drain ---------------------------------------------------------------
start_server drain --shutdown_grace_ms=60000
"$run_graph" --graph="$matmul" --session_target="grpc://127.0.0.1:$port" \
  --fetch=s >"$tmp/drain.client.out" 2>"$tmp/drain.client.err" &
client=$!
sleep 2
kill -TERM "$spid"
sleep 0.5
rc=0
"$run_graph" --graph="$loop" --session_target="grpc://127.0.0.1:$port" \
  --fetch=w/Exit >"$tmp/late.out" 2>"$tmp/late.err" || rc=$?
cat "$tmp/late.err"
[ "$rc" -ne 0 ] && grep -q "UNAVAILABLE.*shutting down" "$tmp/late.err" ||
  { echo "FAIL: a new client during the drain was not refused"; exit 1; }
rc=0
wait "$client" || rc=$?
cat "$tmp/drain.client.out" "$tmp/drain.client.err"
[ "$rc" -eq 0 ] && grep -q "^s = " "$tmp/drain.client.out" ||
  { echo "FAIL: the step in flight did not finish in the grace period"; cat "$tmp/drain.server.log"; exit 1; }
rc=0
wait "$spid" || rc=$?
cat "$tmp/drain.server.log"
[ "$rc" -eq 0 ] && grep -q "stopped" "$tmp/drain.server.log" ||
  { echo "FAIL: drain: exit status $rc"; exit 1; }
grep -q "cancelled" "$tmp/drain.server.log" &&
  { echo "FAIL: drain: calls were cancelled"; exit 1; }

# --- running: a step that never ends --------------------------------------
start_server running --shutdown_grace_ms=500 --shutdown_teardown_ms=1500
"$run_graph" --graph="$loop" --session_target="grpc://127.0.0.1:$port" \
  --fetch=w/Exit >"$tmp/running.client.out" 2>"$tmp/running.client.err" &
client=$!
pids+=("$client")
sleep 2
stop_server running 2000
grep -q "calls still running cancelled" "$tmp/running.server.log" ||
  { echo "FAIL: running: the step was not cancelled"; exit 1; }
# The client is answered (an error), not left hanging.
rc=0
wait "$client" || rc=$?
cat "$tmp/running.client.err"
[ "$rc" -ne 0 ] || { echo "FAIL: running: the endless step succeeded?"; exit 1; }

# --- wedged: a kernel holds the only thread --------------------------------
start_server wedged --shutdown_grace_ms=500 --shutdown_teardown_ms=1500
"$run_graph" --graph="$matmul" --session_target="grpc://127.0.0.1:$port" \
  --fetch=s >"$tmp/wedged.client.out" 2>"$tmp/wedged.client.err" &
pids+=("$!")
sleep 2
stop_server wedged 2000

trap - EXIT
cleanup
echo PASS
