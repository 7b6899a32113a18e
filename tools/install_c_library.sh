#!/usr/bin/env bash
# Installs stepflow's TensorFlow C API as a drop-in libtensorflow:
#   PREFIX/include/tensorflow/c/*.h        TensorFlow's C API headers
#   PREFIX/lib/libtensorflow.so.2          the library (soname libtensorflow.so.2)
#   PREFIX/lib/libtensorflow.so            -> libtensorflow.so.2
#   PREFIX/lib/pkgconfig/tensorflow.pc     pkg-config file
#
# Usage: tools/install_c_library.sh PREFIX
# Builds //runtime/c:libtensorflow.so.2 with Bazel first, unless
# STEPFLOW_C_LIBRARY names an already built library (tests do) and
# STEPFLOW_C_HEADERS the directory holding tensorflow/c/.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
prefix="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

lib="${STEPFLOW_C_LIBRARY:-}"
headers="${STEPFLOW_C_HEADERS:-}"
if [ -z "$lib" ]; then
  (cd "$here" && bazel build --jobs=2 //runtime/c:libtensorflow.so.2)
  lib="$here/bazel-bin/runtime/c/libtensorflow.so.2"
fi
if [ -z "$headers" ]; then
  headers="$here/runtime/c/include"
fi

mkdir -p "$prefix/include/tensorflow/c" "$prefix/lib/pkgconfig"
install -m 0644 "$headers"/tensorflow/c/*.h "$prefix/include/tensorflow/c/"
install -m 0755 "$lib" "$prefix/lib/libtensorflow.so.2"
ln -sf libtensorflow.so.2 "$prefix/lib/libtensorflow.so"

abs_prefix="$(cd "$prefix" && pwd)"
cat >"$prefix/lib/pkgconfig/tensorflow.pc" <<PC
prefix=$abs_prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: TensorFlow
Description: TensorFlow's C API (stepflow runtime)
Version: 2.21.0
Libs: -L\${libdir} -ltensorflow
Cflags: -I\${includedir}
PC
echo "installed libtensorflow into $abs_prefix"
