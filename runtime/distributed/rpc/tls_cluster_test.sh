#!/usr/bin/env bash
# Mutual TLS between real processes. At test time (nothing secret is
# committed) openssl makes a CA, a certificate for the servers (IP
# 127.0.0.1, usable as server and as client: the tasks call each other)
# and one for the client, and a second CA with a client certificate of its
# own. Two grpc_server tasks run with --tls_cert/--tls_key/--tls_ca:
#   - run_graph with the client certificate runs examples/two_task.pbtxt
#     (x*x on task 1, x*x + x on task 0, so the tasks call each other over
#     TLS too): z = [2 6 12 20] for the graph's x = [1 2 3 4];
#   - a client with no certificate, one from the other CA, or no TLS at
#     all is refused: run_graph exits non-zero naming the TLS handshake
#     (or, for a plaintext client, the connection the server dropped), the
#     server's log says why (no certificate / verify failed), and the
#     servers serve on; a client that trusts another CA refuses the
#     servers in turn, as it refuses a server whose certificate does not
#     name 127.0.0.1;
#   - a server given --tls_ca without a certificate refuses to start.
set -euo pipefail

server="$1"
run_graph="$2"
graph="$3"
source "$(dirname "$0")/server_test_lib.sh"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
pki="$tmp/pki"
mkdir -p "$pki"

# new_ca NAME: $pki/NAME.key, $pki/NAME.crt (self-signed).
new_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$pki/$1.key" -out "$pki/$1.crt" -days 2 -subj "/CN=$1" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}
# new_cert NAME CA EXTENSIONS: $pki/NAME.key, $pki/NAME.crt signed by CA.
new_cert() {
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$pki/$1.key" -out "$pki/$1.csr" -subj "/CN=$1" 2>/dev/null
  printf '%s\n' "$3" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/$2.crt" -CAkey "$pki/$2.key" \
    -CAcreateserial -out "$pki/$1.crt" -days 2 -extfile "$pki/$1.ext" 2>/dev/null
}
new_ca ca
new_ca other_ca
new_cert server ca "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth,clientAuth"
new_cert client ca "extendedKeyUsage=clientAuth"
new_cert intruder other_ca "extendedKeyUsage=clientAuth"
new_cert misnamed ca "subjectAltName=DNS:example.com
extendedKeyUsage=serverAuth,clientAuth"

p0=$(free_port)
p1=$(free_port)
cluster="worker=127.0.0.1:$p0,127.0.0.1:$p1"
server_tls=(--tls_cert="$pki/server.crt" --tls_key="$pki/server.key"
            --tls_ca="$pki/ca.crt")
pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for t in 0 1; do
  "$server" --cluster="$cluster" --task=$t "${server_tls[@]}" \
    >"$tmp/s$t.log" 2>&1 &
  pids+=($!)
done
for t in 0 1; do await_listening "$tmp/s$t.log"; done
grep -q "listening on 127.0.0.1:$p0 (mutual TLS)" "$tmp/s0.log" ||
  { echo "FAIL: task 0 does not say TLS"; cat "$tmp/s0.log"; exit 1; }

# run_graph on the cluster with client flags "$@"; output in $tmp/run.*.
step() {
  "$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$p0" \
    --fetch=z --timeout_ms=20000 "$@" >"$tmp/run.out" 2>"$tmp/run.err"
}

step --tls_cert="$pki/client.crt" --tls_key="$pki/client.key" \
     --tls_ca="$pki/ca.crt" ||
  { echo "FAIL: the client with a valid certificate failed"; cat "$tmp/run.err"; exit 1; }
out=$(cat "$tmp/run.out")
[ "$out" = "z = [2 6 12 20]" ] || { echo "FAIL: wrong result: $out"; exit 1; }
echo "valid client certificate: $out"

# expect_refused WHAT PATTERN CLIENT-FLAGS...: the step fails, naming PATTERN.
expect_refused() {
  local what="$1" pattern="$2"
  shift 2
  local rc=0
  step "$@" || rc=$?
  [ "$rc" -ne 0 ] || { echo "FAIL: $what: the step succeeded"; exit 1; }
  grep -Eq "$pattern" "$tmp/run.err" ||
    { echo "FAIL: $what: the error does not say '$pattern'"; cat "$tmp/run.err"; exit 1; }
  echo "$what: refused (exit $rc): $(head -c 600 "$tmp/run.err")"
}
expect_refused "no client certificate" "TLS handshake" --tls_ca="$pki/ca.crt"
expect_refused "certificate of another CA" "TLS handshake" \
  --tls_cert="$pki/intruder.crt" --tls_key="$pki/intruder.key" \
  --tls_ca="$pki/ca.crt"
expect_refused "plaintext client" "UNAVAILABLE: .*does it require TLS"
# A client that does not trust the servers' CA refuses them in turn.
expect_refused "client trusting another CA" "TLS handshake" \
  --tls_cert="$pki/intruder.crt" --tls_key="$pki/intruder.key" \
  --tls_ca="$pki/other_ca.crt"

# The server's log says why it refused each (gRPC's own log lines).
for why in "peer did not return a certificate" "certificate verify failed"; do
  grep -q "$why" "$tmp/s0.log" ||
    { echo "FAIL: task 0's log does not say '$why'"; cat "$tmp/s0.log"; exit 1; }
done

# The servers serve on.
step --tls_cert="$pki/client.crt" --tls_key="$pki/client.key" \
     --tls_ca="$pki/ca.crt" ||
  { echo "FAIL: the cluster stopped serving"; cat "$tmp/run.err"; exit 1; }

# A server whose certificate does not name the host the client dials
# (127.0.0.1) is refused by the client.
pm=$(free_port)
"$server" --cluster="worker=127.0.0.1:$pm" --tls_cert="$pki/misnamed.crt" \
  --tls_key="$pki/misnamed.key" --tls_ca="$pki/ca.crt" >"$tmp/misnamed.log" 2>&1 &
pids+=($!)
await_listening "$tmp/misnamed.log"
rc=0
"$run_graph" --graph="$graph" --session_target="grpc://127.0.0.1:$pm" \
  --fetch=z --tls_cert="$pki/client.crt" --tls_key="$pki/client.key" \
  --tls_ca="$pki/ca.crt" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "TLS handshake failed: the server's certificate does not name the host dialed" "$tmp/run.err" ||
  { echo "FAIL: misnamed server certificate: exit $rc"; cat "$tmp/run.err"; exit 1; }
echo "server certificate without 127.0.0.1: refused: $(head -c 400 "$tmp/run.err")"

# A TLS server needs its own certificate and key.
rc=0
"$server" --cluster="worker=127.0.0.1:$(free_port)" --tls_ca="$pki/ca.crt" \
  >"$tmp/bad.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "INVALID_ARGUMENT" "$tmp/bad.log" ||
  { echo "FAIL: a server with only --tls_ca: exit $rc"; cat "$tmp/bad.log"; exit 1; }
echo "server with only --tls_ca: $(cat "$tmp/bad.log")"

kill -TERM "${pids[@]}"
for p in "${pids[@]}"; do
  wait "$p" || { echo "FAIL: a server exited non-zero"; cat "$tmp"/s*.log; exit 1; }
done
trap - EXIT
echo PASS
