#!/usr/bin/env bash
# The same C programs (c_api_program.c, c_api_differential_program.c,
# c_api_experimental_program.c, c_api_groups_program.c),
# built once against stepflow's installed libtensorflow.so.2 and once
# against the installed TensorFlow's own library (its wheel's
# libtensorflow_cc.so.2 and libtensorflow_framework.so.2 export the C API),
# must print identical output. Skips without STEPFLOW_TF_PYTHON.
set -euo pipefail
root="${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}"
source "$root/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
site="$("$TF_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
tf_dir="$site/tensorflow"
for f in libtensorflow_cc.so.2 libtensorflow_framework.so.2 include/tensorflow/c/c_api.h; do
  if [ ! -e "$tf_dir/$f" ]; then
    echo "FAILED: $tf_dir/$f not found" >&2
    exit 1
  fi
done

prefix="$tmp/prefix"
STEPFLOW_C_LIBRARY="$root/runtime/c/libtensorflow.so.2" \
  STEPFLOW_C_HEADERS="$root/runtime/c/include" \
  "$root/tools/install_c_library.sh" "$prefix" >/dev/null
saved_model="$root/testing/tf_goldens/zoo/tf1_saved_model/saved_model"
checkpoint="$saved_model/variables/variables"

status=0
for prog in c_api_program c_api_differential_program \
  c_api_experimental_program c_api_groups_program; do
  src="$root/runtime/c/$prog.c"
  cc -std=c11 -o "$tmp/${prog}_ours" "$src" -I"$prefix/include" \
    -L"$prefix/lib" -ltensorflow -lm
  cc -std=c11 -o "$tmp/${prog}_tf" "$src" -I"$tf_dir/include" \
    "$tf_dir/libtensorflow_cc.so.2" "$tf_dir/libtensorflow_framework.so.2" \
    -Wl,-rpath,"$tf_dir" -lm
  args=()
  if [ "$prog" = c_api_program ]; then args=("$saved_model"); fi
  if [ "$prog" = c_api_experimental_program ]; then args=("$checkpoint"); fi
  LD_LIBRARY_PATH="$prefix/lib" "$tmp/${prog}_ours" "${args[@]}" \
    >"$tmp/${prog}_ours.txt" 2>"$tmp/${prog}_ours.err" || true
  TF_CPP_MIN_LOG_LEVEL=3 "$tmp/${prog}_tf" "${args[@]}" \
    >"$tmp/${prog}_tf.txt" 2>"$tmp/${prog}_tf.err" || true
  if diff -u "$tmp/${prog}_tf.txt" "$tmp/${prog}_ours.txt"; then
    echo "$prog: identical ($(wc -l <"$tmp/${prog}_tf.txt") lines)"
  else
    echo "FAILED: $prog prints differently against stepflow (+) and TensorFlow (-)" >&2
    status=1
  fi
done
exit $status
