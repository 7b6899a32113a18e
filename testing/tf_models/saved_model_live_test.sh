#!/usr/bin/env bash
# Live: TensorFlow writes TF1 SavedModels (SavedModelBuilder: ref variables,
# an asset, a main op, a second MetaGraph; binary and text), and run_graph
# --saved_model must load each and compute what TensorFlow's loader did.
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
out="${TEST_TMPDIR:-$(mktemp -d)}/saved_model_live"
rm -rf "$out"
mkdir -p "$out"
"$TF_PYTHON" "$(runfile testing/tf_models/write_tf1_saved_model.py)" "$out" \
  > "$out/writer.log" 2>&1 || { cat "$out/writer.log"; exit 1; }
run_graph="$(runfile runtime/bin/run_graph)"
for form in binary text; do
  "$run_graph" --saved_model="$out/$form" --tags=serve \
    --signature=serving_default --output_dir="$out/${form}_got" \
    x=@"$out/x.npy"
  "$TF_PYTHON" - "$out" "$form" <<'PY'
import sys
import numpy as np
out, form = sys.argv[1], sys.argv[2]
y = np.load(f"{out}/{form}_got/y_0.npy")
want = np.load(f"{out}/{form}_y.npy")
assert y.shape == want.shape and np.allclose(y, want, rtol=1e-5, atol=1e-5), (y, want)
got = np.load(f"{out}/{form}_got/asset_0.npy", allow_pickle=False).item()
got = got.decode() if isinstance(got, bytes) else got
want_asset = str(np.load(f"{out}/{form}_asset.npy"))
assert got == want_asset, (got, want_asset)
print(form, "matches TensorFlow")
PY
done
# The "train" MetaGraph has no signatures (the error names none); an
# unknown tag set is refused, naming the ones the SavedModel has.
if "$run_graph" --saved_model="$out/binary" --tags=train x=@"$out/x.npy" \
    > "$out/train.log" 2>&1; then
  echo "FAILED: ran a signature of the train MetaGraph"; exit 1
fi
grep -q "its signatures are: none" "$out/train.log" || { cat "$out/train.log"; exit 1; }
if "$run_graph" --saved_model="$out/binary" --tags=gpu x=@"$out/x.npy" \
    > "$out/bad_tags.log" 2>&1; then
  echo "FAILED: --tags=gpu loaded"; exit 1
fi
grep -q "{ serve }" "$out/bad_tags.log" || { cat "$out/bad_tags.log"; exit 1; }
echo PASSED
