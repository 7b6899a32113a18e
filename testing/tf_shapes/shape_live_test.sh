#!/bin/bash
# Live: TensorFlow's shapes recorded afresh for the zoo (every model,
# generated now) and compared with stepflow's.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
out="${TEST_TMPDIR:?}"
"$TF_PYTHON" "$(runfile testing/tf_models/generate_zoo.py)" "$out/cases" >/dev/null
"$TF_PYTHON" "$(runfile testing/tf_shapes/tf_shapes.py)" "$out/cases" "$out/shapes"
exec "$(runfile testing/tf_shapes/shape_check)" --cases="$out/cases" \
  --shapes="$out/shapes" \
  --known="$(runfile testing/tf_shapes/known_differences_live.txt)"
