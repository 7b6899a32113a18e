# Shared by the differential tests' shell drivers (source it).
#
#   runfile PATH        the absolute path of workspace file PATH in the
#                       test's runfiles
#   tf_python_or_skip   sets TF_PYTHON to $STEPFLOW_TF_PYTHON; without it the
#                       test passes with a SKIPPED message naming the install
#                       command, or fails when STEPFLOW_REQUIRE_TF=1 (CI)

runfile() {
  echo "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/$1"
}

tf_python_or_skip() {
  TF_PYTHON="${STEPFLOW_TF_PYTHON:-}"
  if [ -n "$TF_PYTHON" ] && [ -x "$TF_PYTHON" ]; then
    # TensorFlow and Keras keep caches under HOME; keep them in the sandbox.
    export HOME="${TEST_TMPDIR:-/tmp}" KERAS_HOME="${TEST_TMPDIR:-/tmp}/keras"
    return 0
  fi
  local why="TensorFlow is not installed: run tools/install_tf.sh and set STEPFLOW_TF_PYTHON to the interpreter it prints (tools/test.sh does both)"
  if [ "${STEPFLOW_REQUIRE_TF:-}" = "1" ]; then
    echo "FAILED: $why" >&2
    exit 1
  fi
  echo "SKIPPED: $why"
  exit 0
}
