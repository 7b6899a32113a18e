#!/usr/bin/env bash
# libtensorflow.so.2 exports exactly the functions its headers declare
# (TF_CAPI_EXPORT declarations of TensorFlow's include/tensorflow/c/*.h and
# of stepflow's additions in runtime/c/c_api.h): none missing, nothing else
# (no C++ runtime symbols) visible.
set -euo pipefail

root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
lib="$root/runtime/c/libtensorflow.so.2"

# Declared: "TF_CAPI_EXPORT [extern] <type> TF_Name(" possibly over lines
# (TensorFlow leaves out the extern on a few, e.g. the XLA switches).
cat "$root"/runtime/c/include/tensorflow/c/*.h "$root/runtime/c/c_api.h" | tr '\n' ' ' |
  grep -oE 'TF_CAPI_EXPORT +(extern +)?[^;(]*[^A-Za-z0-9_](TF_[A-Za-z0-9_]+) *\(' |
  grep -oE 'TF_[A-Za-z0-9_]+ *\($' | tr -d ' (' | sort -u >"$tmp/declared.txt"
# Exported: defined dynamic symbols of the library.
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' |
  sort -u >"$tmp/exported.txt"

if [ "$(wc -l <"$tmp/declared.txt")" -lt 200 ]; then
  echo "FAILED: found only $(wc -l <"$tmp/declared.txt") declarations" >&2
  exit 1
fi
status=0
missing="$(comm -23 "$tmp/declared.txt" "$tmp/exported.txt")"
extra="$(comm -13 "$tmp/declared.txt" "$tmp/exported.txt")"
if [ -n "$missing" ]; then
  echo "FAILED: declared but not exported:" >&2
  echo "$missing" >&2
  status=1
fi
if [ -n "$extra" ]; then
  echo "FAILED: exported but not declared:" >&2
  echo "$extra" >&2
  status=1
fi
echo "$(wc -l <"$tmp/declared.txt") functions declared and exported"
exit $status
