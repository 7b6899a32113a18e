#!/usr/bin/env bash
# Installs TensorFlow, the project's oracle and benchmark peer, into a
# git-ignored virtualenv, only when it is missing or not the pinned version.
#
#   tools/install_tf.sh            # installs if needed; prints the interpreter
#
# The virtualenv lives at $STEPFLOW_TF_VENV (default: .tf_venv in the
# workspace root). Tests and tools find its interpreter through one
# variable, STEPFLOW_TF_PYTHON (tools/test.sh exports it and .bazelrc passes
# it through to tests with --test_env); see testing/tf_oracle/README.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${STEPFLOW_TF_VENV:-$root/.tf_venv}"
tf_version="2.21.0"
py="$venv/bin/python"

installed() {
  [ -x "$py" ] && "$py" - "$tf_version" <<'PY' >/dev/null 2>&1
import sys
import numpy
import tensorflow as tf
sys.exit(0 if tf.__version__ == sys.argv[1] else 1)
PY
}

if ! installed; then
  base_python="${STEPFLOW_BASE_PYTHON:-$(command -v python3.11 || command -v python3)}"
  echo "install_tf: creating $venv with tensorflow-cpu==$tf_version (from $base_python)" >&2
  rm -rf "$venv"
  "$base_python" -m venv "$venv"
  "$py" -m pip install -q --disable-pip-version-check --upgrade pip >&2
  "$py" -m pip install -q --disable-pip-version-check \
    "tensorflow-cpu==$tf_version" numpy >&2
  if ! installed; then
    echo "install_tf: TensorFlow $tf_version did not import from $venv" >&2
    "$py" -c "import tensorflow" >&2 || true
    exit 1
  fi
fi
echo "$py"
