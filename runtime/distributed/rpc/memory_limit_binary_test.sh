#!/usr/bin/env bash
# Allocation never aborts a server (issue 25): a grpc_server under a 4 GiB
# address-space cap (ulimit -v), with its default memory budget (80% of
# the cap), gets graphs whose tensors no budget holds and an 11-byte
# TensorProto that declares 2^32 floats, fed and as a Const. Each is
# ResourceExhausted naming the node, the shape and the bytes; the server
# stays up, and a normal session on it then succeeds. A second server with
# --memory_limit=64M refuses a 100 MB Fill the same way. Bad flag values
# (a thread count of 100000, a malformed --memory_limit) exit 1 with a
# message instead of aborting.
set -euo pipefail

server="$1"
client="$2"
run_graph="$3"
affine="$4"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_server() {  # log, port, extra flags...
  local log="$1" port="$2"
  shift 2
  (ulimit -v 4194304; exec "$server" --cluster="worker=127.0.0.1:$port" --task=0 "$@") \
    >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    grep -q "listening on" "$log" && return 0
    sleep 0.1
  done
  echo "FAIL: server did not start"; cat "$log"; exit 1
}

const_i32() {  # name, values...
  local name="$1"
  shift
  local vals=""
  for v in "$@"; do vals="$vals int_val: $v"; done
  echo "node { name: \"$name\" op: \"Const\"
  attr { key: \"dtype\" value { type: DT_INT32 } }
  attr { key: \"value\" value { tensor { dtype: DT_INT32
    tensor_shape { dim { size: $# } } $vals } } } }"
}
const_f32_scalar() {
  echo "node { name: \"$1\" op: \"Const\"
  attr { key: \"dtype\" value { type: DT_FLOAT } }
  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: $2 } } } }"
}

# RandomUniform of shape [1048576,1048576]: 4 TiB of floats.
{ const_i32 shape 1048576 1048576
  echo 'node { name: "r" op: "RandomUniform" input: "shape"
  attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } }'
} >"$tmp/random.pbtxt"
# Fill of [100000,100000] floats: 40 GB.
{ const_i32 dims 100000 100000
  const_f32_scalar one 1
  echo 'node { name: "f" op: "Fill" input: "dims" input: "one"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }'
} >"$tmp/fill.pbtxt"
# Tile of 1000 floats 4,000,000 times: 16 GB.
{ echo 'node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000 } } float_val: 1 } } } }'
  const_i32 multiples 4000000
  echo 'node { name: "t" op: "Tile" input: "v" input: "multiples"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tmultiples" value { type: DT_INT32 } } }'
} >"$tmp/tile.pbtxt"
# Range(0, 2e9): 8 GB of int32.
{ echo 'node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }'
  echo 'node { name: "limit" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2000000000 } } } }'
  echo 'node { name: "delta" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }'
  echo 'node { name: "range" op: "Range" input: "start" input: "limit" input: "delta"
  attr { key: "Tidx" value { type: DT_INT32 } } }'
} >"$tmp/range.pbtxt"
# A Const whose 11-byte value declares 2^32 floats (16 GiB).
echo 'node { name: "big" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } } } } } }' \
  >"$tmp/const.pbtxt"
# A placeholder fed the same 11 bytes.
echo 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }' \
  >"$tmp/feed.pbtxt"
huge='dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } }'

port=$(free_port)
start_server "$tmp/server.log" "$port"
s0=$pid
cleanup() { kill -9 "$s0" 2>/dev/null || true; [ -n "${s1:-}" ] && kill -9 "$s1" 2>/dev/null || true; }
trap cleanup EXIT

expect_oom() {  # what, node, shape, bytes, client flags...
  local what="$1" node="$2" shape="$3" bytes="$4"
  shift 4
  local out
  if ! out=$("$client" --target="127.0.0.1:$port" --expect=RESOURCE_EXHAUSTED "$@" 2>&1); then
    echo "FAIL: $what: not ResourceExhausted"; echo "$out"; cat "$tmp/server.log"; exit 1
  fi
  echo "$out" | grep "RunStep"
  for want in "$node" "$shape" "$bytes"; do
    grep -qF -- "$want" <<<"$out" || { echo "FAIL: $what: the error does not name '$want'"; echo "$out"; exit 1; }
  done
  kill -0 "$s0" 2>/dev/null || { echo "FAIL: $what killed the server"; cat "$tmp/server.log"; exit 1; }
}

expect_oom "RandomUniform 4 TiB" "{{node r}}" "shape[1048576,1048576] and type float" \
  "4398046511104 bytes" --graph="$tmp/random.pbtxt" --fetch=r
expect_oom "Fill 40 GB" "{{node f}}" "shape[100000,100000] and type float" \
  "40000000000 bytes" --graph="$tmp/fill.pbtxt" --fetch=f
expect_oom "Tile 16 GB" "{{node t}}" "shape[4000000000]" "16000000000 bytes" \
  --graph="$tmp/tile.pbtxt" --fetch=t
expect_oom "Range 8 GB" "{{node range}}" "shape[2000000000] and type int32" \
  "8000000000 bytes" --graph="$tmp/range.pbtxt" --fetch=range
expect_oom "11-byte Const" "{{node big}}" "shape[4294967296] and type float" \
  "17179869184 bytes" --graph="$tmp/const.pbtxt" --fetch=big
expect_oom "11-byte feed" "Bad feed" "shape[4294967296] and type float" \
  "17179869184 bytes" --graph="$tmp/feed.pbtxt" --fetch=y --feed="x=$huge"

# The server is alive and serves a normal session.
out=$("$run_graph" --graph="$affine" --session_target="grpc://127.0.0.1:$port" \
      --fetch=y,total 'x=[[1,2],[3,4]]' 2>"$tmp/run.err") ||
  { echo "FAIL: the normal session failed"; cat "$tmp/run.err" "$tmp/server.log"; exit 1; }
echo "$out"
grep -q "total = " <<<"$out" || { echo "FAIL: no result"; exit 1; }
grep -q "Fatal\|terminate" "$tmp/server.log" && { echo "FAIL: server log"; cat "$tmp/server.log"; exit 1; }

# --memory_limit sets the budget: 64 MiB refuses a 100 MB Fill.
port2=$(free_port)
start_server "$tmp/server2.log" "$port2" --memory_limit=64M
s1=$pid
{ const_i32 dims 5000 5000
  const_f32_scalar one 1
  echo 'node { name: "f" op: "Fill" input: "dims" input: "one"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }'
} >"$tmp/fill100m.pbtxt"
out=$("$client" --target="127.0.0.1:$port2" --expect=RESOURCE_EXHAUSTED \
      --graph="$tmp/fill100m.pbtxt" --fetch=f 2>&1) ||
  { echo "FAIL: --memory_limit=64M did not refuse 100 MB"; echo "$out"; exit 1; }
grep -q "limit 67108864" <<<"$out" || { echo "FAIL: the limit is not named"; echo "$out"; exit 1; }

# Bad flag values are clear errors (exit 1), not aborts.
set +e
"$server" --cluster="worker=127.0.0.1:$(free_port)" --inter_op_threads=100000 >"$tmp/bad1.log" 2>&1
rc1=$?
"$server" --cluster="worker=127.0.0.1:$(free_port)" --memory_limit=lots >"$tmp/bad2.log" 2>&1
rc2=$?
"$run_graph" --graph="$affine" --fetch=y --inter_op_threads=100000 'x=1' >"$tmp/bad3.log" 2>&1
rc3=$?
"$server" --cluster="worker=127.0.0.1:$(free_port)" --intra_op_threads=-1 >"$tmp/bad4.log" 2>&1
rc4=$?
set -e
[ "$rc1" -eq 1 ] && grep -q "inter_op_threads=100000 is out of range" "$tmp/bad1.log" ||
  { echo "FAIL: --inter_op_threads=100000 gave $rc1"; cat "$tmp/bad1.log"; exit 1; }
[ "$rc2" -eq 1 ] && grep -q "memory_limit='lots'" "$tmp/bad2.log" ||
  { echo "FAIL: --memory_limit=lots gave $rc2"; cat "$tmp/bad2.log"; exit 1; }
[ "$rc3" -eq 1 ] && grep -q "inter_op_threads=100000 is out of range" "$tmp/bad3.log" ||
  { echo "FAIL: run_graph --inter_op_threads=100000 gave $rc3"; cat "$tmp/bad3.log"; exit 1; }
[ "$rc4" -eq 1 ] && grep -q "intra_op_threads=-1 is out of range" "$tmp/bad4.log" ||
  { echo "FAIL: --intra_op_threads=-1 gave $rc4"; cat "$tmp/bad4.log"; exit 1; }

kill -TERM "$s0" "$s1"
wait "$s0" || true
wait "$s1" || true
trap - EXIT
echo PASS
