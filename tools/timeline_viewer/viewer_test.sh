#!/usr/bin/env bash
# Renders the timeline of a real two-device step in headless Chromium and
# checks the viewer drew one lane per device and one arrow per Send/Recv
# pair. The screenshot lands in the test's undeclared outputs
# (bazel-testlogs/tools/timeline_viewer/viewer_test/test.outputs/).
# Skips (passes with a message) when chromium is not installed.
set -euo pipefail

run_graph="$1"
graph="$2"
render="$3"
viewer="$4"

if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIPPED: chromium is not installed (tools/install_deps.sh installs it)"
  exit 0
fi

export HOME="$TEST_TMPDIR"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}"
"$run_graph" --graph="$graph" --cpus=2 --fetch=z --timeline="$TEST_TMPDIR/t.json"
grep -q '"ph":"s"' "$TEST_TMPDIR/t.json"
VIEWER_HTML="$viewer" "$render" "$TEST_TMPDIR/t.json" "$out/timeline"

dom="$out/timeline.dom.html"
lanes=$(grep -o 'class="lane"' "$dom" | wc -l)
flows=$(grep -o 'class="flow"' "$dom" | wc -l)
kernels=$(grep -o 'class="kernel"' "$dom" | wc -l)
echo "lanes=$lanes flows=$flows kernels=$kernels"
fail=0
[ "$lanes" -eq 2 ] || { echo "FAIL: expected 2 lanes"; fail=1; }
[ "$flows" -eq 2 ] || { echo "FAIL: expected 2 Send/Recv arrows"; fail=1; }
[ "$kernels" -ge 7 ] || { echo "FAIL: expected at least 7 kernels"; fail=1; }
for d in CPU:0 CPU:1; do
  grep -q "data-device=\"/job:localhost/replica:0/task:0/device:$d\"" "$dom" ||
    { echo "FAIL: no lane for $d"; fail=1; }
done
grep -q 'lanes=2 kernels=' "$dom" || { echo "FAIL: summary missing"; fail=1; }
# The screenshot is a real PNG of a non-trivial size.
head -c 8 "$out/timeline.png" | od -An -tx1 | grep -q '89 50 4e 47' ||
  { echo "FAIL: screenshot is not a PNG"; fail=1; }
[ "$(stat -c %s "$out/timeline.png")" -gt 5000 ] || { echo "FAIL: screenshot too small"; fail=1; }
exit $fail
