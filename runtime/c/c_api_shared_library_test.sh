#!/usr/bin/env bash
# Installs libtensorflow.so.2 with tools/install_c_library.sh into a
# temporary prefix, builds c_api_program.c outside Bazel with a plain
# `cc prog.c -I... -L... -ltensorflow` (and again with the flags
# pkg-config gives), and runs it against a TensorFlow-written SavedModel.
set -euo pipefail

root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
prefix="$tmp/prefix"

STEPFLOW_C_LIBRARY="$root/runtime/c/libtensorflow.so.2" \
  STEPFLOW_C_HEADERS="$root/runtime/c/include" \
  "$root/tools/install_c_library.sh" "$prefix"

# The soname is TensorFlow's release soname.
soname="$(objdump -p "$prefix/lib/libtensorflow.so.2" | awk '/SONAME/ {print $2}')"
if [ "$soname" != "libtensorflow.so.2" ]; then
  echo "FAILED: soname is '$soname', want libtensorflow.so.2" >&2
  exit 1
fi

cc -std=c11 -Wall -Werror -o "$tmp/prog" "$root/runtime/c/c_api_program.c" \
  -I"$prefix/include" -L"$prefix/lib" -ltensorflow -lm
saved_model="$root/testing/tf_goldens/zoo/tf1_saved_model/saved_model"
LD_LIBRARY_PATH="$prefix/lib" "$tmp/prog" "$saved_model" | tee "$tmp/out.txt"
grep -qx PASS "$tmp/out.txt"

# The program needs only libtensorflow.so.2 of the prefix.
if ! readelf -d "$tmp/prog" | grep -q 'NEEDED.*\[libtensorflow.so.2\]'; then
  echo "FAILED: the program does not link libtensorflow.so.2" >&2
  exit 1
fi

if command -v pkg-config >/dev/null; then
  flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tensorflow)"
  # shellcheck disable=SC2086
  cc -std=c11 -o "$tmp/prog_pc" "$root/runtime/c/c_api_program.c" $flags -lm
  LD_LIBRARY_PATH="$prefix/lib" "$tmp/prog_pc" "$saved_model" >"$tmp/out_pc.txt"
  cmp "$tmp/out.txt" "$tmp/out_pc.txt"
else
  echo "pkg-config not installed: the .pc file was written but not exercised"
fi
echo "OK"
