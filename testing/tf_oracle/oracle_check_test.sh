#!/usr/bin/env bash
# Runs oracle_check over cases in the test's runfiles, without TensorFlow:
#   oracle_check_test.sh LABEL CASES_DIR [CANNOT_RUN_YET_FILE]
# (workspace-relative paths). Passes only when oracle_check does.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
label="$1"
cases="$(runfile "$2")"
args=(--cases="$cases" --label="$label")
if [ $# -ge 3 ]; then args+=(--cannot_run_yet="$(runfile "$3")"); fi
exec "$(runfile testing/tf_oracle/oracle_check)" "${args[@]}"
