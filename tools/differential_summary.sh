#!/usr/bin/env bash
# Prints what the TensorFlow-differential tests of the last `bazel test`
# found, from their logs: each suite's SUMMARY line (zoo models, op cases,
# random graphs), the cases stepflow cannot run yet with their reasons, and
# any live suite that skipped because TensorFlow is not installed.
# tools/test.sh calls it after the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=()
for t in testing/tf_models/zoo_live_test testing/tf_models/zoo_golden_test \
         testing/tf_ops/ops_live_test testing/tf_ops/ops_golden_test \
         testing/tf_oracle/random_graph_differential_test; do
  [ -f "bazel-testlogs/$t/test.log" ] && logs+=("bazel-testlogs/$t/test.log")
done
[ ${#logs[@]} -gt 0 ] || exit 0
echo
echo "== TensorFlow differential =="
for log in "${logs[@]}"; do
  name="${log#bazel-testlogs/}"
  name="${name%/test.log}"
  if grep -q '^SKIPPED: ' "$log"; then
    echo "  //${name%/*}:${name##*/}: $(grep -m1 '^SKIPPED: ' "$log")"
    continue
  fi
  grep -h '^SUMMARY ' "$log" | sed 's/^SUMMARY /  /'
done
# The live zoo's list is the one that matters (the goldens are a subset).
for log in "${logs[@]}"; do
  case "$log" in *zoo_live_test*) ;; *) continue ;; esac
  awk '/^Cannot run yet/ {on = 1} on && /^(Cannot run yet|  )/ {print "  " $0}' "$log"
done
exit 0
