#!/usr/bin/env bash
# stepflow's master and worker messages against the installed TensorFlow's
# descriptors (wire_compat_check.py says what is checked). Skips (exit 0,
# with a message) without STEPFLOW_TF_PYTHON.
set -euo pipefail
check="$1"
descriptors="$2"
source "$3"
tf_python_or_skip
"$TF_PYTHON" "$check" "$descriptors" 2>&1 | grep -v -e '^WARNING: All log' \
  -e '^I0000' -e 'oneDNN' -e 'cpu_feature_guard' -e 'To enable the following'
echo PASS
