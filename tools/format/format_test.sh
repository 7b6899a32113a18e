#!/usr/bin/env bash
# Test wrapper around format_check.sh, in the manner of the seam test:
# 1. checks the sources Bazel handed to this test (every package's :sources
#    filegroup, listed in tools/format/BUILD), so editing a source re-runs it;
# 2. plants a misformatted file, which must fail the check;
# 3. checks that every package with C++ sources is in the scanned set.
set -euo pipefail
check="$TEST_SRCDIR/$TEST_WORKSPACE/tools/format/format_check.sh"
ws="$TEST_SRCDIR/$TEST_WORKSPACE"
dirs=(runtime sim testing benchmarks fuzz examples tools)

scratch="$TEST_TMPDIR/tree"
rm -rf "$scratch"; mkdir -p "$scratch"
cp -L "$ws/.clang-format" "$scratch/.clang-format"
for d in "${dirs[@]}"; do
  [ -d "$ws/$d" ] || continue
  while read -r f; do
    mkdir -p "$scratch/$(dirname "$f")"
    cp -L "$ws/$f" "$scratch/$f"
  done < <(cd "$ws" && find -L "$d" \( -name '*.cc' -o -name '*.h' -o -name '*.cu' \) -print)
done

bash "$check" "$scratch"

# The check must be able to fail, and name the file (a tree of its own: one
# formatted file and one planted misformatted one).
planted="$TEST_TMPDIR/planted"
rm -rf "$planted"; mkdir -p "$planted/runtime"
cp -L "$ws/.clang-format" "$planted/.clang-format"
printf 'int F(int x) { return x; }\n' > "$planted/runtime/good.cc"
printf 'int  F( int x ){return x;}\n' > "$planted/runtime/bad.cc"
if out=$(bash "$check" "$planted" 2>&1); then
  echo "FAIL: format_check accepted a misformatted file"; exit 1
fi
if ! grep -q "runtime/bad.cc" <<<"$out" || grep -q "runtime/good.cc" <<<"$out"; then
  echo "FAIL: format_check did not name exactly the misformatted file:"
  echo "$out"; exit 1
fi

# Every package with C++ sources in the real tree must be scanned.
real_root="$(dirname "$(dirname "$(dirname "$(readlink -f "$check")")")")"
missing=0
for build in $(cd "$real_root" && for d in "${dirs[@]}"; do [ -d "$d" ] && find "$d" -name BUILD; done); do
  pkg=$(dirname "$build")
  if ls "$real_root/$pkg"/*.cc "$real_root/$pkg"/*.h >/dev/null 2>&1 && [ ! -d "$scratch/$pkg" ]; then
    echo "FAIL: package //$pkg has C++ sources but no :sources filegroup in tools/format/BUILD"
    missing=1
  fi
done
[ "$missing" = 0 ] || exit 1
echo "format_test: OK"
