#!/usr/bin/env bash
# The live zoo differential: generates every zoo model with the installed
# TensorFlow (testing/tf_models/generate_zoo.py), records TensorFlow's
# results, and holds stepflow to them (oracle_check), listing the models
# stepflow cannot run yet (cannot_run_yet.txt).
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
out="${TEST_TMPDIR:-$(mktemp -d)}/zoo"
"$TF_PYTHON" "$(runfile testing/tf_models/generate_zoo.py)" "$out"
exec "$(runfile testing/tf_oracle/oracle_check)" --cases="$out" --label=zoo \
  --cannot_run_yet="$(runfile testing/tf_models/cannot_run_yet.txt)"
