#!/usr/bin/env bash
# Renders a timeline JSON (run_graph --timeline=FILE) with viewer.html in
# headless Chromium.
#
#   tools/timeline_viewer/render.sh TRACE.json OUT_PREFIX
#
# writes OUT_PREFIX.html (the viewer with the trace embedded: open it in any
# browser), OUT_PREFIX.png (a screenshot) and OUT_PREFIX.dom.html (the DOM
# after rendering, for tests). Needs python3 and chromium (Debian package
# `chromium`). Exit 2 if chromium is missing, 1 on any other failure.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 TRACE.json OUT_PREFIX" >&2
  exit 1
fi
trace="$1"
out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
viewer="${VIEWER_HTML:-$here/viewer.html}"

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [ -z "$browser" ]; then
  echo "render.sh: chromium not found (apt-get install chromium)" >&2
  exit 2
fi

python3 - "$viewer" "$trace" "$out.html" <<'PY'
import sys
viewer, trace, out = sys.argv[1:]
page = open(viewer, encoding="utf-8").read()
data = open(trace, encoding="utf-8").read().replace("</", "<\\/")
marker = "/*TRACE_DATA*/"
if marker not in page:
    sys.exit("viewer.html has no %s marker" % marker)
open(out, "w", encoding="utf-8").write(page.replace(marker, data, 1))
PY

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage
       --no-first-run --user-data-dir="$profile" --hide-scrollbars)
url="file://$(cd "$(dirname "$out.html")" && pwd)/$(basename "$out.html")"
"$browser" "${flags[@]}" --window-size=1420,420 --screenshot="$out.png" "$url" \
  >/dev/null 2>"$profile/screenshot.log" || { cat "$profile/screenshot.log" >&2; exit 1; }
"$browser" "${flags[@]}" --dump-dom "$url" >"$out.dom.html" 2>"$profile/dom.log" ||
  { cat "$profile/dom.log" >&2; exit 1; }
[ -s "$out.png" ] || { echo "render.sh: no screenshot written" >&2; exit 1; }
echo "render.sh: wrote $out.html $out.png $out.dom.html"
