#!/usr/bin/env bash
# Peak memory of a large graph: run_graph runs one step of a chain of N
# Identity nodes (default 1,000,000; a 39 MB binary GraphDef) fed by a
# Placeholder, and /usr/bin/time reports its peak resident set. MET when
# the peak is under the bound (default 1.5 GB, issue "No client can crash,
# wedge or bleed a server"), MISSED otherwise. Exit 0 either way (a
# measurement, not a test); 1 on errors. Needs python3 with protobuf (the
# TensorFlow virtualenv of tools/install_tf.sh has it).
#
#   benchmarks/chain_memory.sh [NODES] [BOUND_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-1000000}
bound_mb=${2:-1536}
python=${STEPFLOW_TF_PYTHON:-.tf_venv/bin/python}
bazel build -c opt //runtime/bin:run_graph >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" - "$nodes" "$tmp/chain.pb" <<'PY'
import sys
from tensorflow.core.framework import graph_pb2, types_pb2
n, out = int(sys.argv[1]), sys.argv[2]
g = graph_pb2.GraphDef()
x = g.node.add(name="x", op="Placeholder")
x.attr["dtype"].type = types_pb2.DT_FLOAT
prev = "x"
for i in range(n):
    node = g.node.add(name="n%d" % i, op="Identity", input=[prev])
    node.attr["T"].type = types_pb2.DT_FLOAT
    prev = node.name
open(out, "wb").write(g.SerializeToString())
PY
last="n$((nodes - 1))"
/usr/bin/time -v bazel-bin/runtime/bin/run_graph --graph="$tmp/chain.pb" \
  --fetch="$last" x=2 >"$tmp/out" 2>"$tmp/time"
grep -q "^$last = 2$" "$tmp/out" || { cat "$tmp/out" "$tmp/time" >&2; exit 1; }
peak_kb=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$tmp/time")
wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$tmp/time")
bytes=$(stat -c %s "$tmp/chain.pb")
verdict=MISSED
[ "$peak_kb" -lt $((bound_mb * 1024)) ] && verdict=MET
printf 'chain of %d nodes (GraphDef %d bytes): peak RSS %d MB, %d bytes/node, wall %s; bound %d MB: %s\n' \
  "$nodes" "$bytes" $((peak_kb / 1024)) $((peak_kb * 1024 / nodes)) "$wall" "$bound_mb" "$verdict"
