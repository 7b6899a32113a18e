#!/usr/bin/env bash
# The live erf / erfc sweep: the installed TensorFlow computes erf and erfc
# of about 1.6 million floats spread over the whole range
# (erf_sweep.py --dense), and erf_float_sweep_test holds every vectorised
# copy this CPU runs to them.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$TF_PYTHON" "$(runfile testing/tf_ops/erf_sweep.py)" "$tmp/erf_sweep.txt" --dense
STEPFLOW_ERF_SWEEP="$tmp/erf_sweep.txt" \
  exec "$(runfile testing/tf_ops/erf_float_sweep_test)"
