#!/usr/bin/env bash
# The whole test suite: unit, property, fuzz-regression and simulation tests,
# the golden TensorFlow-differential tests, and the live differential
# against real TensorFlow.
# Installs missing Debian packages (tools/install_deps.sh) and TensorFlow
# (tools/install_tf.sh, into the git-ignored .tf_venv) first.
# Extra arguments go to `bazel test` (e.g. --config=asan).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install_deps.sh
# The one way tests and tools find TensorFlow's interpreter (passed through
# to tests by .bazelrc). In CI a TensorFlow that cannot be installed is a
# failure; elsewhere the live tests skip and name the install command.
if STEPFLOW_TF_PYTHON="$(./tools/install_tf.sh)"; then
  export STEPFLOW_TF_PYTHON
elif [ "${CI:-}" = "true" ]; then
  echo "test.sh: TensorFlow could not be installed (tools/install_tf.sh)" >&2
  exit 1
else
  echo "test.sh: TensorFlow is not installed; the live differential tests skip" >&2
  unset STEPFLOW_TF_PYTHON
fi
extra=()
if [ "${CI:-}" = "true" ]; then
  extra+=(--config=ci)
  export STEPFLOW_REQUIRE_TF=1
fi
rc=0
bazel test "${extra[@]}" "$@" //... || rc=$?
./tools/differential_summary.sh
exit "$rc"
