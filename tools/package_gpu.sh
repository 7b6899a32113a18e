#!/usr/bin/env bash
# Packages the GPU test and benchmark binaries for a GPU machine that has the
# NVIDIA driver and CUDA 13 but none of our Debian packages, no Bazel and no
# network.
#
# Usage (on the build machine, from the workspace root):
#   tools/package_gpu.sh [OUT_DIR]          # default OUT_DIR: gpu_package
#   # copy OUT_DIR to the GPU machine, then there:
#   OUT_DIR/run.sh                  # GPU tests, then the MLP benchmark
#   OUT_DIR/run.sh test [gtest flags]
#   OUT_DIR/run.sh bench [--steps=N]
#   OUT_DIR/run.sh memcheck         # gpu_test under compute-sanitizer
#   OUT_DIR/run.sh check            # all of the above and the PyTorch peer
#                                   # (benchmarks/gpu_mlp_torch.py), each
#                                   # under a time limit, then a summary
#
# What it does: builds //runtime/gpu:gpu_test and //benchmarks:gpu_mlp_benchmark, copies
# them (stripped) into OUT_DIR/bin and every shared library they load,
# except glibc and the CUDA libraries (libcuda, libcudart, libcublas*: the
# GPU machine's own driver and CUDA 13 provide them), into OUT_DIR/lib.
# glibc (libc/libm/libdl/libpthread/librt and the loader) goes to
# OUT_DIR/lib/glibc: run.sh uses the machine's own glibc when it is at least
# the build machine's version, and otherwise starts the binaries through the
# bundled loader. LD_LIBRARY_PATH gets OUT_DIR/lib and the machine's CUDA
# lib64 ($CUDA_PATH, default /usr/local/cuda).
set -euo pipefail
out="${1:-gpu_package}"
bins=(runtime/gpu/gpu_test benchmarks/gpu_mlp_benchmark)
targets=(//runtime/gpu:gpu_test //benchmarks:gpu_mlp_benchmark)

bazel build "${targets[@]}"
bazel_bin="$(bazel info bazel-bin 2>/dev/null)"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/glibc"
getconf GNU_LIBC_VERSION | awk '{print $2}' > "$out/lib/glibc/VERSION"
for b in "${bins[@]}"; do
  cp "$bazel_bin/$b" "$out/bin/"
  chmod u+w "$out/bin/$(basename "$b")"
  strip --strip-debug "$out/bin/$(basename "$b")"
  ldd "$bazel_bin/$b" | awk '/=> \// {print $1, $3} /ld-linux/ && !/=>/ {print "ld-linux-x86-64.so.2", $1}' |
  while read -r name path; do
    case "$name" in
      libcuda.so*|libcudart.so*|libcublas.so*|libcublasLt.so*) continue ;;
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*)
        [ -e "$out/lib/glibc/$name" ] || cp -L "$path" "$out/lib/glibc/$name"
        continue ;;
    esac
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
  done
done

cp benchmarks/gpu_mlp_torch.py "$out/bin/"

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the packaged GPU tests / benchmark (see tools/package_gpu.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cuda="${CUDA_PATH:-/usr/local/cuda}"
libs="$here/lib:$cuda/lib64:$cuda/targets/x86_64-linux/lib"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Older system glibc than the build machine's: use the bundled one (the
# driver's libcuda is still found through the system's library cache).
launch=()
need="$(cat "$here/lib/glibc/VERSION")"
have="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1)" != "$need" ]; then
  launch=("$here/lib/glibc/ld-linux-x86-64.so.2" --library-path "$libs:$here/lib/glibc:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu")
fi
mode="${1:-all}"
[ $# -gt 0 ] && shift
case "$mode" in
  test)  exec "${launch[@]}" "$here/bin/gpu_test" "$@" ;;
  bench) exec "${launch[@]}" "$here/bin/gpu_mlp_benchmark" "$@" ;;
  memcheck)
    sanitizer="$cuda/bin/compute-sanitizer"
    [ -x "$sanitizer" ] || sanitizer="$(command -v compute-sanitizer)"
    exec "$sanitizer" --tool memcheck --error-exitcode 1 \
      "${launch[@]}" "$here/bin/gpu_test" "$@" ;;
  all)
    "${launch[@]}" "$here/bin/gpu_test" "$@"
    "${launch[@]}" "$here/bin/gpu_mlp_benchmark" ;;
  check)
    # Every part runs whatever the others did; the summary gives each exit
    # status (124: its time limit ran out).
    dump="$(mktemp -d)"
    summary=()
    part() {
      local name="$1" limit="$2"; shift 2
      echo "=== $name (limit ${limit}s)"
      local rc=0
      timeout "$limit" "$@" || rc=$?
      summary+=("$name: exit $rc")
    }
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
    part test 120 "$0" test
    part bench 120 "$0" bench --dump_dir="$dump"
    if [ -f "$dump/losses.npy" ]; then
      part pytorch 120 python3 "$here/bin/gpu_mlp_torch.py" "$dump"
    else
      summary+=("pytorch: not run (the benchmark wrote no losses)")
    fi
    part memcheck 240 "$0" memcheck
    echo "=== summary"
    printf '%s\n' "${summary[@]}"
    ;;
  *) echo "usage: run.sh [all|test|bench|memcheck|check] [args]" >&2; exit 2 ;;
esac
RUN
chmod +x "$out/run.sh"
echo "packaged into $out:"
du -sh "$out/bin" "$out/lib"
