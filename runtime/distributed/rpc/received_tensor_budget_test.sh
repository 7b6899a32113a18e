#!/usr/bin/env bash
# A tensor received from another task counts against the receiving task's
# memory budget: on a two-process cluster, task 0 (default budget) fills
# 100 MB and task 1 (--memory_limit=64M) takes its Shape, so task 1 must
# receive the 100 MB. The step fails ResourceExhausted naming the received
# key, the sending task and the bytes; both servers live, and a step that
# moves a small tensor between them then succeeds.
set -euo pipefail

server="$1"
client="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# shellcheck source=runtime/distributed/rpc/server_test_lib.sh
source "$(dirname "$0")/server_test_lib.sh"

p0=$(free_port)
p1=$(free_port)
cluster="worker=127.0.0.1:$p0,127.0.0.1:$p1"
"$server" --cluster="$cluster" --task=0 >"$tmp/s0.log" 2>&1 &
s0=$!
"$server" --cluster="$cluster" --task=1 --memory_limit=64M >"$tmp/s1.log" 2>&1 &
s1=$!
cleanup() { kill -9 "$s0" "$s1" 2>/dev/null || true; }
trap cleanup EXIT
await_listening "$tmp/s0.log"
await_listening "$tmp/s1.log"

graph() {  # dim: Fill [dim,dim] floats on task 0, its Shape on task 1.
  echo "node { name: \"dims\" op: \"Const\" device: \"/job:worker/replica:0/task:0\"
  attr { key: \"dtype\" value { type: DT_INT32 } }
  attr { key: \"value\" value { tensor { dtype: DT_INT32
    tensor_shape { dim { size: 2 } } int_val: $1 int_val: $1 } } } }
node { name: \"one\" op: \"Const\" device: \"/job:worker/replica:0/task:0\"
  attr { key: \"dtype\" value { type: DT_FLOAT } }
  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: \"f\" op: \"Fill\" input: \"dims\" input: \"one\"
  device: \"/job:worker/replica:0/task:0\"
  attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"index_type\" value { type: DT_INT32 } } }
node { name: \"s\" op: \"Shape\" input: \"f\" device: \"/job:worker/replica:0/task:1\"
  attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"out_type\" value { type: DT_INT32 } } }"
}
graph 5000 >"$tmp/big.pbtxt"
graph 10 >"$tmp/small.pbtxt"

out=$("$client" --target="127.0.0.1:$p0" --expect=RESOURCE_EXHAUSTED \
      --graph="$tmp/big.pbtxt" --fetch=s 2>&1) ||
  { echo "FAIL: 100 MB received over a 64 MiB budget was not refused"; echo "$out"
    cat "$tmp/s1.log"; exit 1; }
echo "$out"
for want in "Cannot receive" "/job:worker/replica:0/task:0/device:CPU:0;" \
            "from /job:worker/replica:0/task:0" "100000000 bytes"; do
  echo "$out" | grep -qF -- "$want" ||
    { echo "FAIL: the error does not name '$want'"; exit 1; }
done
kill -0 "$s0" 2>/dev/null && kill -0 "$s1" 2>/dev/null ||
  { echo "FAIL: a server died"; cat "$tmp/s0.log" "$tmp/s1.log"; exit 1; }

out=$("$client" --target="127.0.0.1:$p0" --expect=OK --graph="$tmp/small.pbtxt" \
      --fetch=s 2>&1) || { echo "FAIL: the small step failed"; echo "$out"; exit 1; }
echo "$out"
if grep -q "Fatal\|terminate" "$tmp/s0.log" "$tmp/s1.log"; then
  echo "FAIL: server log"; cat "$tmp/s0.log" "$tmp/s1.log"; exit 1
fi

kill -TERM "$s0" "$s1"
wait "$s0" || true
wait "$s1" || true
trap - EXIT
echo PASS
