# Helpers for the tests that run grpc_server processes (sourced).

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits (up to 10 s) until the server logging to $1 listens; fails the
# test otherwise.
await_listening() {
  local log="$1"
  for _ in $(seq 1 100); do
    grep -q "listening on" "$log" && return 0
    sleep 0.1
  done
  echo "FAIL: server did not start"
  cat "$log"
  exit 1
}

# Milliseconds since the epoch.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
