#!/usr/bin/env bash
# A real run becomes a simulator seed: two grpc_server processes (tasks 0
# and 1) record every call they serve (--record) while run_graph trains
# examples/linear_regression.pbtxt (variables on task 1, the math on task
# 0) for 50 steps, with task 1 killed (kill -9) and restarted on the same
# port midway (its new incarnation records into task1.rec.1):
#   between_sessions  init + 25 steps; the kill and restart; a new session,
#                     init + 25 steps;
#   mid_step          a long run killed in the middle of its steps (after
#                     step 25 was reported): its step fails; the restart; a
#                     new session, init + 25 steps.
# Then, in the simulator:
#   1. replay of the three recordings: "replays identically" (every client
#      call's outcome, fetched values and failed steps included, and the
#      workers' answer counts), with the crash and restart of task 1
#      applied; twice, with the same hash (nothing depends on real time);
#   2. replay with the planted bug swapped_sub: departs at a RunStep whose
#      fetched values differ, and shrinks (--shrink_to) to fewer client
#      calls than recorded; the shrunk recording replays identically
#      without the bug and departs with it;
#   3. the same for skip_cleanup_graph, which only the workers' side shows.
set -euo pipefail

mode="$1"
server="$2"
run_graph="$3"
replay="$4"
graph="$5"
source "$6"  # server_test_lib.sh
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
rec="$tmp/rec"
rm -rf "$rec"
mkdir -p "$rec"

two_task_cluster
# Task $1, recording into $rec/task$1.rec (or .1, .2 ... once taken).
start_recording_task() { start_task "$1" --record="$rec/task$1.rec"; }

train() {
  "$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$p0" \
    --device="w=$task1,b=$task1" --init=init --target=train \
    --fetch=w,b,loss --print_every=5 "$@" \
    "x=[0.1,0.3,0.5,0.7,0.9]" "y=[0.31,0.33,0.35,0.37,0.39]"
}

start_recording_task 0
start_recording_task 1
await_listening "$tmp/s0.log"
await_listening "$tmp/s1.log"

case "$mode" in
between_sessions)
  train --steps=25 >"$tmp/run1.out" 2>&1 ||
    { echo "FAIL: first run"; cat "$tmp/run1.out"; exit 1; }
  kill -9 "$s1"
  wait "$s1" 2>/dev/null || true
  ;;
mid_step)
  train --steps=100000000 --timeout_ms=2000 >"$tmp/run1.out" 2>&1 &
  run_pid=$!
  for _ in $(seq 1 300); do
    grep -q "^step 25:" "$tmp/run1.out" && break
    sleep 0.02
  done
  grep -q "^step 25:" "$tmp/run1.out" ||
    { echo "FAIL: training did not get going"; cat "$tmp/run1.out"; exit 1; }
  kill -9 "$s1"
  wait "$s1" 2>/dev/null || true
  rc=0
  wait "$run_pid" || rc=$?
  run_pid=""
  [ "$rc" -ne 0 ] || { echo "FAIL: the run survived the kill"; exit 1; }
  tail -1 "$tmp/run1.out"
  ;;
*)
  echo "FAIL: unknown mode '$mode'"; exit 1
  ;;
esac
start_recording_task 1
await_listening "$tmp/s1.log"
grep -q "recording to $rec/task1.rec.1" "$tmp/s1.log" ||
  { echo "FAIL: the restarted task does not record into task1.rec.1"; cat "$tmp/s1.log"; exit 1; }
train --steps=25 >"$tmp/run2.out" 2>&1 ||
  { echo "FAIL: second run"; cat "$tmp/run2.out"; exit 1; }
kill -TERM "$s0" "$s1"
wait "$s0" "$s1" || { echo "FAIL: server exit"; cat "$tmp"/s*.log; exit 1; }
s0=""
s1=""
trap - EXIT
tail -3 "$tmp/run2.out"

files=("$rec/task0.rec" "$rec/task1.rec" "$rec/task1.rec.1")

# 1. Identical, twice, with the same hash.
for i in 1 2; do
  rc=0
  "$replay" "${files[@]}" >"$tmp/replay$i.out" 2>&1 || rc=$?
  cat "$tmp/replay$i.out"
  [ "$rc" -eq 0 ] || { echo "FAIL: replay exit $rc"; exit 1; }
done
grep -q "replays identically" "$tmp/replay1.out" || { echo "FAIL: not identical"; exit 1; }
grep -Eq "recorded run: 2 tasks, .* 2 faults \(3 files\)" "$tmp/replay1.out" ||
  { echo "FAIL: expected 2 tasks, a crash and a restart, 3 files"; exit 1; }
grep -q "restart /job:worker/replica:0/task:1" "$tmp/replay1.out" ||
  { echo "FAIL: no restart of task 1"; exit 1; }
calls=$(sed -n 's/.*master [^,]*, \([0-9]*\) client calls.*/\1/p' "$tmp/replay1.out")
# Two sessions of init + 25 steps + 5 fetches each, at least.
[ "$calls" -ge 60 ] || { echo "FAIL: only $calls client calls recorded"; exit 1; }
h1=$(grep -o "hash=[0-9a-f]*" "$tmp/replay1.out")
h2=$(grep -o "hash=[0-9a-f]*" "$tmp/replay2.out")
[ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "FAIL: hashes $h1 vs $h2"; exit 1; }

# 2./3. Planted bugs: departs, shrinks, the shrunk run replays.
for bug in swapped_sub skip_cleanup_graph; do
  rc=0
  "$replay" --planted_bug=$bug --shrink_to="$tmp/shrunk_$bug.rec" "${files[@]}" \
    >"$tmp/bug_$bug.out" 2>&1 || rc=$?
  cat "$tmp/bug_$bug.out"
  [ "$rc" -eq 1 ] || { echo "FAIL: replay with $bug exit $rc, want 1"; exit 1; }
  grep -q "^DEPARTS at event" "$tmp/bug_$bug.out" || { echo "FAIL: $bug did not depart"; exit 1; }
  kept=$(sed -n 's/^shrunk: [0-9]* -> \([0-9]*\) client calls.*/\1/p' "$tmp/bug_$bug.out")
  [ -n "$kept" ] && [ "$kept" -lt "$calls" ] && [ "$kept" -le 10 ] ||
    { echo "FAIL: $bug shrank to '$kept' of $calls calls"; exit 1; }
  "$replay" "$tmp/shrunk_$bug.rec" >"$tmp/shrunk_$bug.out" 2>&1 ||
    { echo "FAIL: shrunk run without the bug"; cat "$tmp/shrunk_$bug.out"; exit 1; }
  grep -q "replays identically" "$tmp/shrunk_$bug.out" || { echo "FAIL: shrunk not identical"; exit 1; }
  rc=0
  "$replay" --planted_bug=$bug "$tmp/shrunk_$bug.rec" >"$tmp/shrunk_bug_$bug.out" 2>&1 || rc=$?
  cat "$tmp/shrunk_bug_$bug.out"
  [ "$rc" -eq 1 ] || { echo "FAIL: shrunk run with $bug exit $rc, want 1"; exit 1; }
done
echo PASS
