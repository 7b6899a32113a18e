#!/usr/bin/env bash
# c_api_experimental_program against stepflow's C API must print what it
# printed against TensorFlow's own library (the golden, written by
# c_api_differential_live_test's TensorFlow build of the same program:
#   cc -std=c11 c_api_experimental_program.c -I$TF/include \
#     $TF/libtensorflow_cc.so.2 $TF/libtensorflow_framework.so.2
#   ./a.out testing/tf_goldens/zoo/tf1_saved_model/saved_model/variables/variables
# ).
set -euo pipefail
root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
checkpoint="$root/testing/tf_goldens/zoo/tf1_saved_model/saved_model/variables/variables"
"$root/runtime/c/c_api_experimental_program" "$checkpoint" >"$tmp/out.txt"
if diff -u "$root/runtime/c/testdata/c_api_experimental_program.golden" "$tmp/out.txt"; then
  echo "identical to TensorFlow's output ($(wc -l <"$tmp/out.txt") lines)"
else
  echo "FAILED: stepflow (+) prints differently from TensorFlow (-)" >&2
  exit 1
fi
