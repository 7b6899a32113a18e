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
bad=()
for f in $files; do
  if ! "$formatter" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "Not formatted (run: clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format_check: $(echo "$files" | wc -w) files formatted"
