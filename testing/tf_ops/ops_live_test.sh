#!/usr/bin/env bash
# The live op differential: lists stepflow's registered ops
# (//testing/tf_oracle:registered_ops), generates every op's cases with the
# installed TensorFlow (generate_op_cases.py), records TensorFlow's results,
# and holds stepflow to them (oracle_check), with the cases stepflow refuses
# listed in known_differences.txt.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$(runfile testing/tf_oracle/registered_ops)" > "$tmp/ops.json"
"$TF_PYTHON" "$(runfile testing/tf_ops/generate_op_cases.py)" "$tmp/ops" \
  --ops_json="$tmp/ops.json"
exec "$(runfile testing/tf_oracle/oracle_check)" --cases="$tmp/ops" --label=ops \
  --cannot_run_yet="$(runfile testing/tf_ops/known_differences.txt)"
