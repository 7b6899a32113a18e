#!/usr/bin/env bash
# Runs the C API's tests (and the C API programs) under valgrind (memcheck, full leak check) and
# prints one line per test: exit status, definitely lost bytes, errors.
# A test fails (exit 9) on any memory error or definitely lost block.
#
# Usage: tools/valgrind_c_api.sh [TEST ...]   (default: the list below)
# Builds the tests first (bazel build --jobs=2). Gradient goldens are run
# for a few cases only: under valgrind all 65 take too long.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(c_api_function_test c_api_gradients_test c_api_server_test
    c_api_build_test c_api_import_test c_api_string_test c_api_tensor_test
    c_api_session_test c_api_experimental_program c_api_groups_program)
fi
targets=()
for t in "${tests[@]}"; do targets+=("//runtime/c:$t"); done
bazel build --jobs=2 "${targets[@]}" || exit 1

out="${TMPDIR:-/tmp}/valgrind_c_api"
mkdir -p "$out"
status=0
for t in "${tests[@]}"; do
  case "$t" in
    c_api_experimental_program)
      args=("$PWD/testing/tf_goldens/zoo/tf1_saved_model/saved_model/variables/variables") ;;
    c_api_gradients_test)
      args=(--gtest_filter='GoldenGradients*:CApiGradientsTest*:*GoldenGradientTest*/1:*GoldenGradientTest*/30:*GoldenGradientTest*/50:*GoldenGradientTest*/58') ;;
    *) args=() ;;
  esac
  TEST_SRCDIR="$PWD/bazel-bin/runtime/c/$t.runfiles" TEST_WORKSPACE=stepflow \
    valgrind --leak-check=full --errors-for-leak-kinds=definite \
    --error-exitcode=9 "bazel-bin/runtime/c/$t" "${args[@]}" \
    >"$out/$t.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  echo "$t: exit $rc; $(grep -oE 'definitely lost: [0-9,]+ bytes' "$out/$t.log" | tail -1);" \
    "$(grep -oE 'ERROR SUMMARY: [0-9]+ errors' "$out/$t.log" | tail -1) ($out/$t.log)"
done
exit $status
