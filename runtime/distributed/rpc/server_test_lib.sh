# Helpers for the tests that run grpc_server processes (sourced).

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits (up to $2 tenths of a second, 100 by default) until the server
# logging to $1 listens; fails the test otherwise. (A TensorFlow server
# takes several seconds to import on a loaded machine: give it more.)
await_listening() {
  local log="$1"
  for _ in $(seq 1 "${2:-100}"); do
    grep -q "listening on" "$log" && return 0
    sleep 0.1
  done
  echo "FAIL: server did not start"
  cat "$log"
  exit 1
}

# Two tasks of job "worker" on free ports of 127.0.0.1: sets p0, p1,
# cluster and task1 (task 1's name), and an EXIT trap that kills the
# servers s0 and s1 and the client $run_pid (the caller sets them;
# `trap - EXIT` once they are stopped).
two_task_cluster() {
  p0=$(free_port)
  p1=$(free_port)
  cluster="worker=127.0.0.1:$p0,127.0.0.1:$p1"
  task1=/job:worker/replica:0/task:1
  s0=""
  s1=""
  run_pid=""
  trap 'kill -9 $s0 $s1 $run_pid 2>/dev/null || true' EXIT
}

# Starts task $1 of two_task_cluster's cluster ("$server" with the extra
# flags after $1) with its log in $tmp/s$1.log; sets s$1.
start_task() {
  local n="$1"
  shift
  # Empty the log here, not only in the background job's redirection: a
  # restarted task's await_listening must not find the last run's line.
  : >"$tmp/s$n.log"
  "$server" --cluster="$cluster" --task="$n" "$@" >"$tmp/s$n.log" 2>&1 &
  eval "s$n=$!"
}

# Milliseconds since the epoch.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The TensorFlow testdata directory (shared/testdata/tf): $STEPFLOW_TF_TESTDATA,
# else the first ancestor of the calling script's real path (the source
# checkout) holding it — as testing/tf_testdata.h finds it; empty if none.
find_tf_testdata() {
  if [ -n "${STEPFLOW_TF_TESTDATA:-}" ] && [ -d "$STEPFLOW_TF_TESTDATA" ]; then
    echo "$STEPFLOW_TF_TESTDATA"
    return
  fi
  local dir
  dir=$(dirname "$(readlink -f "$0")")
  while [ "$dir" != "/" ]; do
    if [ -d "$dir/shared/testdata/tf" ]; then
      echo "$dir/shared/testdata/tf"
      return
    fi
    dir=$(dirname "$dir")
  done
}

# The training data of the tests of TensorFlow's linear-regression graph
# (testing/linear_regression_data.cc): 100 points of a fixed LCG in [0, 1),
# y = 0.1 x + 0.3, printed as "[x,...] [y,...]" (float32 values).
linear_regression_points() {
  python3 -c '
import struct
f = lambda v: struct.unpack("f", struct.pack("f", v))[0]
state, xs, ys = 12345, [], []
for _ in range(100):
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    x = f((state >> 40) / float(1 << 24))
    xs.append(x); ys.append(f(f(f(0.1) * x) + f(0.3)))
print("[%s]" % ",".join(repr(v) for v in xs), "[%s]" % ",".join(repr(v) for v in ys))
'
}
