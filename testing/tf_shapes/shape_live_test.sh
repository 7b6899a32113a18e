#!/bin/bash
# Live: TensorFlow's shapes recorded afresh and compared with stepflow's,
# for the whole zoo (every model, generated now) and for the full op
# differential (every registered op's cases, generate_op_cases.py).
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
out="${TEST_TMPDIR:?}"
known="$(runfile testing/tf_shapes/known_differences_live.txt)"
check() {  # <cases> <shapes>
  "$TF_PYTHON" "$(runfile testing/tf_shapes/tf_shapes.py)" "$1" "$2"
  "$(runfile testing/tf_shapes/shape_check)" --cases="$1" --shapes="$2" \
    --known="$known"
}
status=0
"$TF_PYTHON" "$(runfile testing/tf_models/generate_zoo.py)" "$out/zoo" >/dev/null
check "$out/zoo" "$out/zoo_shapes" || status=1
"$(runfile testing/tf_oracle/registered_ops)" > "$out/ops.json"
"$TF_PYTHON" "$(runfile testing/tf_ops/generate_op_cases.py)" "$out/ops" \
  --ops_json="$out/ops.json" >/dev/null
check "$out/ops" "$out/ops_shapes" || status=1
exit "$status"
