#!/usr/bin/env bash
# Runs the runtime benchmarks (executor, session, graph pipeline, gRPC
# transport and distributed step, simulator, MLP training step and MatMul,
# convolutions, TensorFlow as a peer) and prints one table with the peers
# and the ratios ours / peer (BENCHMARKS.md).
#
#   benchmarks/run_all.sh [--quick] [--min_time=S] [--repetitions=N]
#                         [--out_dir=DIR] [--only=NAME,...]
#   bazel run [--define=with_torch=1] [--define=with_onednn=1]
#       //benchmarks:all -- [same flags]
#
# Run from a checkout it builds the eight binaries (or those --only names)
# first (-c opt, adding the libtorch peer when Debian's libtorch-dev is
# installed and the oneDNN convolution rows when libdnnl-dev is); under
# `bazel run` it uses the binaries Bazel built. --quick: short runs, one
# repetition, no 1M-node pipeline (a smoke test, not numbers to quote).
# --only: run only the named binaries (executor, session, pipeline, rpc,
# sim, mlp, conv, tf_peer; the others' sections say they were not run).
# Binaries run one at a time. The JSON of each run stays in --out_dir
# (default: a fresh temporary directory, printed at the end).
# TensorFlow (tf_peer_benchmark) comes from $STEPFLOW_TF_PYTHON
# (tools/install_tf.sh); with it, the zoo's inference models are generated
# into --out_dir/zoo (testing/tf_models/generate_zoo.py) and benchmarked
# too. Without it the TensorFlow rows are skipped.
set -euo pipefail

min_time=0.2
repetitions=3
quick=0
out_dir=""
only=""
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --min_time=*) min_time="${arg#*=}" ;;
    --repetitions=*) repetitions="${arg#*=}" ;;
    --out_dir=*) out_dir="${arg#*=}" ;;
    --only=*) only=",${arg#*=}," ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
if [ "$quick" = 1 ]; then
  min_time=0.01
  repetitions=1
fi

wanted() {  # wanted NAME: whether --only (if given) names NAME
  [ -z "$only" ] || [[ "$only" == *",$1,"* ]]
}

binaries=()
for name in executor session pipeline rpc sim mlp conv tf_peer; do
  if wanted "$name"; then binaries+=("${name}_benchmark"); fi
done

if [ -n "${BUILD_WORKSPACE_DIRECTORY:-}" ] && [ -x benchmarks/executor_benchmark ]; then
  # `bazel run //benchmarks:all`: the runfiles tree is the working directory.
  bin_dir="$PWD/benchmarks"
  report="$PWD/benchmarks/report.py"
  repo="$BUILD_WORKSPACE_DIRECTORY"
else
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cd "$repo"
  defines=()
  if [ -f /usr/include/ATen/ATen.h ]; then defines+=(--define=with_torch=1); fi
  if [ -f /usr/include/oneapi/dnnl/dnnl.hpp ]; then defines+=(--define=with_onednn=1); fi
  bazel build -c opt "${defines[@]}" "${binaries[@]/#/\/\/benchmarks:}" >&2
  # The configuration's own output directory, not the bazel-bin symlink
  # (which another build with other flags may re-point meanwhile).
  bin_dir="$(bazel info -c opt "${defines[@]}" bazel-bin 2>/dev/null)/benchmarks"
  report="$repo/benchmarks/report.py"
fi

if [ -z "$out_dir" ]; then out_dir="$(mktemp -d -t stepflow_bench.XXXXXX)"; fi
mkdir -p "$out_dir/bin"
# Run private copies, so that a rebuild during the run cannot swap them.
for name in "${binaries[@]}"; do
  cp -f "$bin_dir/$name" "$out_dir/bin/$name"
done
bin_dir="$out_dir/bin"

run() {  # run NAME [extra benchmark flags...]
  local name="$1"
  shift
  if ! wanted "${name%_benchmark}"; then return 0; fi
  echo "run_all.sh: running $name" >&2
  "$bin_dir/$name" --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$repetitions" \
    --benchmark_out="$out_dir/$name.json" --benchmark_out_format=json \
    "$@" >&2
}

run executor_benchmark
run session_benchmark
if [ "$quick" = 1 ]; then
  run pipeline_benchmark --benchmark_filter='nodes:(10000|100000)/'
else
  # Each 1M-node iteration takes seconds: one repetition is enough.
  repetitions=1 run pipeline_benchmark
fi
# Its peers run in the same process: interleaving the repetitions exposes
# ours and the peer to the same background load. With TensorFlow, two
# TensorFlow servers (tf.distribute.Server) on loopback are the peer of the
# cluster rows (--tf_cluster).
rpc_flags=()
tf_server_pids=()
if [ -n "${STEPFLOW_TF_PYTHON:-}" ] && wanted rpc; then
  tf_ports=($(python3 -c 'import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])'))
  tf_addresses="127.0.0.1:${tf_ports[0]},127.0.0.1:${tf_ports[1]}"
  for task in 0 1; do
    "$STEPFLOW_TF_PYTHON" "$repo/runtime/distributed/rpc/tf_server.py"       "$tf_addresses" "$task" >"$out_dir/tf_server_$task.log" 2>&1 &
    tf_server_pids+=($!)
  done
  trap 'kill "${tf_server_pids[@]}" 2>/dev/null || true' EXIT
  for _ in $(seq 120); do
    if grep -q listening "$out_dir/tf_server_0.log" 2>/dev/null &&
       grep -q listening "$out_dir/tf_server_1.log" 2>/dev/null; then
      rpc_flags+=(--tf_cluster="$tf_addresses")
      break
    fi
    sleep 1
  done
  if [ ${#rpc_flags[@]} -eq 0 ]; then
    echo "run_all.sh: TensorFlow's servers did not start; no TensorFlow cluster rows" >&2
  fi
fi
run rpc_benchmark --benchmark_enable_random_interleaving=true "${rpc_flags[@]}"
if [ ${#tf_server_pids[@]} -gt 0 ]; then
  kill "${tf_server_pids[@]}" 2>/dev/null || true
  wait "${tf_server_pids[@]}" 2>/dev/null || true
fi
# The simulator is single-threaded: its rows are one core's throughput with
# the trace hashed, against 20,000 local steps/s and 300 distributed seeds/s.
run sim_benchmark \
  --benchmark_filter='BM_LocalWorkload/1$|BM_MultiClientWorkload/0$|BM_DistributedWorkload'
# Ours and the peers interleaved, as for rpc_benchmark; --quick runs the
# batch-64 steps and one MatMul call each. libtorch's OpenMP workers sleep
# when idle (OMP_WAIT_POLICY=PASSIVE): spinning, the default, they take the
# cores from OpenBLAS's own threads and libtorch's 2-thread step runs 3-4x
# slower on two cores (BENCHMARKS.md). Stepflow uses no OpenMP.
if [ "$quick" = 1 ]; then
  OMP_WAIT_POLICY=PASSIVE run mlp_benchmark \
    --benchmark_filter='batch:64/|MatMul|Sgemm'
else
  OMP_WAIT_POLICY=PASSIVE run mlp_benchmark \
    --benchmark_enable_random_interleaving=true
fi

# Convolutions; TensorFlow's timings of the same graphs come from
# conv_tf_peer.py, run right after (same machine state).
if [ "$quick" = 1 ]; then
  run conv_benchmark --benchmark_filter='threads:1'
else
  run conv_benchmark --benchmark_enable_random_interleaving=true
fi
conv_tf_flags=()
if [ -n "${STEPFLOW_TF_PYTHON:-}" ] && wanted conv; then
  echo "run_all.sh: running conv_tf_peer.py" >&2
  if "$STEPFLOW_TF_PYTHON" "$repo/benchmarks/conv_tf_peer.py" \
    "$out_dir/conv_tf_peer.json" --min_time="$min_time" \
    --repetitions="$repetitions" >&2; then
    conv_tf_flags+=(--conv_tf "$out_dir/conv_tf_peer.json")
  else
    echo "run_all.sh: conv_tf_peer.py failed; no TensorFlow convolutions" >&2
  fi
fi

# TensorFlow as a peer: the zoo's frozen inference models and the LeNet-5
# training step, generated with TensorFlow itself.
# Rows interleaved as above; --quick runs batch 1 and 64 only.
zoo_models="lenet5_momentum,mobilenet_v2,resnet50,transformer_encoder,keras_lstm"
zoo_script="$repo/testing/tf_models/generate_zoo.py"
tf_peer_flags=()
if [ -n "${STEPFLOW_TF_PYTHON:-}" ] && [ -f "$zoo_script" ] && wanted tf_peer; then
  echo "run_all.sh: generating the zoo's inference models ($zoo_models)" >&2
  if "$STEPFLOW_TF_PYTHON" "$zoo_script" "$out_dir/zoo" --only="$zoo_models" >&2; then
    tf_peer_flags+=(--cases="$out_dir/zoo")
  else
    echo "run_all.sh: generate_zoo.py failed; no inference models" >&2
  fi
fi
if [ "$quick" = 1 ]; then
  run tf_peer_benchmark "${tf_peer_flags[@]}" \
    --benchmark_filter='SessionRun|batch:(1|64)/|Training|iterations:'
else
  run tf_peer_benchmark "${tf_peer_flags[@]}" \
    --benchmark_enable_random_interleaving=true
fi

echo
report_flags=()
for name in executor session pipeline rpc sim mlp conv tf_peer; do
  if [ -f "$out_dir/${name}_benchmark.json" ]; then
    report_flags+=(--"$name" "$out_dir/${name}_benchmark.json")
  fi
done
python3 "$report" "${report_flags[@]}" "${conv_tf_flags[@]}"
echo
echo "(raw JSON in $out_dir)"
