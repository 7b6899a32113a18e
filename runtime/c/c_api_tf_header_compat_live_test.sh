#!/usr/bin/env bash
# Our C API headers against the installed TensorFlow's, declaration by
# declaration (check_tf_header_compat.py): identical prototypes for every
# function of TensorFlow's c_api.h and tf_*.h, identical struct layouts and
# enum values. Skips without STEPFLOW_TF_PYTHON.
set -euo pipefail
root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
source "$root/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip

site="$("$TF_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
tf_include="$site/tensorflow/include"
if [ ! -f "$tf_include/tensorflow/c/c_api.h" ]; then
  echo "FAILED: TensorFlow's C headers are not under $tf_include" >&2
  exit 1
fi
python3 "$root/runtime/c/check_tf_header_compat.py" \
  "$root/runtime/c/include" "$tf_include" "${TEST_TMPDIR:-/tmp}/compat"
