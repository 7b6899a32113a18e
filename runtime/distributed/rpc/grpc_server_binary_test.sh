#!/usr/bin/env bash
# Two grpc_server processes on loopback form a cluster; run_graph runs a
# graph split across them through grpc://, writes the distributed step's
# timeline, and both servers stop cleanly on SIGTERM (exit 0).
set -euo pipefail

server="$1"
run_graph="$2"
graph="$3"
render="$4"
viewer="$5"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
source "$(dirname "$0")/server_test_lib.sh"
p0=$(free_port)
p1=$(free_port)
cluster="worker=127.0.0.1:$p0,127.0.0.1:$p1"

"$server" --cluster="$cluster" --task=0 >"$tmp/s0.log" 2>&1 &
s0=$!
"$server" --cluster="$cluster" --task=1 >"$tmp/s1.log" 2>&1 &
s1=$!
cleanup() { kill -9 "$s0" "$s1" 2>/dev/null || true; }
trap cleanup EXIT

for log in "$tmp/s0.log" "$tmp/s1.log"; do
  await_listening "$log"
done

# A second server on a port in use refuses to start (exit 1, naming the
# port) instead of sharing it (SO_REUSEPORT) and stealing half the calls.
rc=0
"$server" --cluster="$cluster" --task=0 >"$tmp/dup.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: second server on port $p0 exited $rc"; cat "$tmp/dup.log"; exit 1; }
grep -q "127.0.0.1:$p0" "$tmp/dup.log" || { echo "FAIL: error does not name the port"; cat "$tmp/dup.log"; exit 1; }
grep -q "listening" "$tmp/dup.log" && { echo "FAIL: second server says listening"; exit 1; }
cat "$tmp/dup.log"

out=$("$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$p0" \
      --fetch=z --timeline="$tmp/t.json" 2>"$tmp/run.err") ||
  { echo "FAIL: run_graph failed"; cat "$tmp/run.err"; exit 1; }
echo "$out"
[ "$out" = "z = [2 6 12 20]" ] || { echo "FAIL: wrong result"; exit 1; }
cat "$tmp/run.err"
# The distributed step's timeline has a lane per task's device and the
# cross-task transfers as arrows.
grep -q 'task:0/device:CPU:0' "$tmp/t.json" || { echo "FAIL: no task 0 lane"; exit 1; }
grep -q 'task:1/device:CPU:0' "$tmp/t.json" || { echo "FAIL: no task 1 lane"; exit 1; }
grep -q '"ph":"f"' "$tmp/t.json" || { echo "FAIL: no transfer arrow"; exit 1; }
out_dir="${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}"
cp "$tmp/t.json" "$out_dir/distributed_timeline.json"
# Rendered in the viewer (headless Chromium, when installed): one lane per
# device of the two tasks, one arrow per cross-task transfer.
if command -v chromium >/dev/null 2>&1; then
  HOME="$tmp" VIEWER_HTML="$viewer" "$render" "$tmp/t.json" "$out_dir/distributed_timeline"
  dom="$out_dir/distributed_timeline.dom.html"
  lanes=$(grep -o 'class="lane"' "$dom" | wc -l)
  flows=$(grep -o 'class="flow"' "$dom" | wc -l)
  echo "viewer: lanes=$lanes flows=$flows"
  [ "$lanes" -eq 2 ] && [ "$flows" -eq 2 ] || { echo "FAIL: viewer lanes/flows"; exit 1; }
else
  echo "viewer check skipped: chromium is not installed"
fi

kill -TERM "$s0" "$s1"
wait "$s0"; rc0=$?
wait "$s1"; rc1=$?
trap - EXIT
grep -q "stopped" "$tmp/s0.log" || { echo "FAIL: server 0 did not stop cleanly"; cat "$tmp/s0.log"; exit 1; }
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] || {
  echo "FAIL: exit codes $rc0 $rc1"
  cat "$tmp/s0.log" "$tmp/s1.log"
  exit 1
}
echo PASS
