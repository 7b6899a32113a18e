#!/usr/bin/env bash
# The format check: every C++ source of the project is formatted as
# clang-format formats it with the repository's .clang-format (Google style,
# 80 columns). Fails listing every file that is not, with the command that
# fixes it.
#
# Usage: format_check.sh <workspace root>
set -euo pipefail
root="$1"
cd "$root"
formatter="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
if [ -z "$formatter" ]; then
  echo "format_check: clang-format is not installed (tools/install_deps.sh installs it)" >&2
  exit 1
fi
[ -f .clang-format ] || { echo "format_check: no .clang-format in $root" >&2; exit 1; }
dirs=()
for d in runtime sim testing benchmarks fuzz examples tools; do
  [ -d "$d" ] && dirs+=("$d")
done
files=$(find "${dirs[@]}" \( -name '*.cc' -o -name '*.h' -o -name '*.cu' \) |
          sort)
# One clang-format process per 100 files (--Werror reports every file that
# differs, "<file>:<line>:<col>: error: code should be clang-formatted").
rc=0
report=$(echo "$files" | xargs -r -n 100 "$formatter" --style=file --dry-run \
           --Werror 2>&1) || rc=$?
mapfile -t bad < <(echo "$report" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  sort -u)
if [ -z "$files" ]; then bad=(); fi
if [ "$rc" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  echo "format_check: $formatter failed:"; echo "$report"; exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "Not formatted (run: clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format_check: $(echo "$files" | wc -w) files formatted"
