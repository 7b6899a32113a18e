#!/usr/bin/env bash
# A C API program (c_api_experimental_program, c_api_groups_program)
# linked against stepflow's C API must print what it printed against
# TensorFlow's own library: testdata/<program>.golden, written by the same
# program built against the installed TensorFlow as
# c_api_differential_live_test builds it:
#   cc -std=c11 PROGRAM.c -I$TF/include $TF/libtensorflow_cc.so.2 \
#     $TF/libtensorflow_framework.so.2 -Wl,-rpath,$TF
#   TF_CPP_MIN_LOG_LEVEL=3 ./a.out [ARGS] > testdata/PROGRAM.golden
# (the live test recompares with the installed TensorFlow).
#
# Usage: c_api_program_golden_test.sh PROGRAM [ARGS...]  (ARGS relative to
# the workspace root)
set -euo pipefail
root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
program="$1"
shift
args=()
for a in "$@"; do args+=("$root/$a"); done
"$root/runtime/c/$program" "${args[@]}" >"$tmp/out.txt"
if diff -u "$root/runtime/c/testdata/$program.golden" "$tmp/out.txt"; then
  echo "$program: identical to TensorFlow's output ($(wc -l <"$tmp/out.txt") lines)"
else
  echo "FAILED: $program prints differently with stepflow (+) and TensorFlow (-)" >&2
  exit 1
fi
