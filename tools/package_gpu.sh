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
#
# What it does: builds //runtime/gpu:gpu_test and :gpu_mlp_benchmark, copies
# them (stripped) into OUT_DIR/bin and every shared library they load,
# except the C runtime (glibc's libc/libm/libdl/libpthread/librt/ld-linux)
# and the CUDA libraries (libcuda, libcudart, libcublas*: the GPU machine's
# own CUDA 13 provides them), into OUT_DIR/lib; run.sh points
# LD_LIBRARY_PATH at OUT_DIR/lib and the machine's CUDA lib64
# ($CUDA_PATH, default /usr/local/cuda).
set -euo pipefail
out="${1:-gpu_package}"
bins=(runtime/gpu/gpu_test runtime/gpu/gpu_mlp_benchmark)
targets=(//runtime/gpu:gpu_test //runtime/gpu:gpu_mlp_benchmark)

bazel build "${targets[@]}"
bazel_bin="$(bazel info bazel-bin 2>/dev/null)"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for b in "${bins[@]}"; do
  cp "$bazel_bin/$b" "$out/bin/"
  chmod u+w "$out/bin/$(basename "$b")"
  strip --strip-debug "$out/bin/$(basename "$b")"
  ldd "$bazel_bin/$b" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*) continue ;;
      libcuda.so*|libcudart.so*|libcublas.so*|libcublasLt.so*) continue ;;
    esac
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
  done
done

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the packaged GPU tests / benchmark (see tools/package_gpu.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cuda="${CUDA_PATH:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$here/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mode="${1:-all}"
[ $# -gt 0 ] && shift
case "$mode" in
  test)  exec "$here/bin/gpu_test" "$@" ;;
  bench) exec "$here/bin/gpu_mlp_benchmark" "$@" ;;
  memcheck)
    exec "$cuda/bin/compute-sanitizer" --tool memcheck --error-exitcode 1 \
      "$here/bin/gpu_test" "$@" ;;
  all)
    "$here/bin/gpu_test" "$@"
    "$here/bin/gpu_mlp_benchmark" ;;
  *) echo "usage: run.sh [all|test|bench|memcheck] [args]" >&2; exit 2 ;;
esac
RUN
chmod +x "$out/run.sh"
echo "packaged into $out:"
du -sh "$out/bin" "$out/lib"
