#!/usr/bin/env bash
# Live: checkpoints cross between TensorFlow and stepflow both ways, bit for
# bit (every savable dtype, MergeV2Checkpoints shards, slices and partial
# restores), and a TF1 MLP that TensorFlow trained 5 steps with Adam and
# saved with tf.compat.v1.train.Saver continues in run_graph with the losses
# TensorFlow gets continuing from the same checkpoint
# (checkpoint_interop.py says what each side writes and checks).
set -euo pipefail
source "${TEST_SRCDIR:?}/${TEST_WORKSPACE:-stepflow}/testing/tf_oracle/live_test_lib.sh"
tf_python_or_skip
out="${TEST_TMPDIR:-$(mktemp -d)}/checkpoint_live"
rm -rf "$out"
mkdir -p "$out/sf_ckpt"
script="$(runfile testing/tf_models/checkpoint_interop.py)"
run_graph="$(runfile runtime/bin/run_graph)"
"$TF_PYTHON" "$script" write "$out" > "$out/writer.log" 2>&1 ||
  { cat "$out/writer.log"; exit 1; }

# stepflow writes: one checkpoint, two merged shards, row slices.
"$run_graph" --graph="$out/save.pb" \
  --target=save_all,save_sharded,save_sliced prefix="$out/sf_ckpt/all" \
  > "$out/save.log" 2>&1 || { cat "$out/save.log"; exit 1; }

# stepflow restores TensorFlow's checkpoint, whole and partial.
fetches=""
for i in $(seq 0 17); do
  fetches="$fetches,restore:$i,restore_sharded:$i"
done
"$run_graph" --graph="$out/restore.pb" --fetch="${fetches#,},partial:0,partial:1" \
  --output_dir="$out/sf_restore" > "$out/restore.log" 2>&1 ||
  { cat "$out/restore.log"; exit 1; }

# stepflow continues TensorFlow's training for k = 1..5 steps.
for k in 1 2 3 4 5; do
  "$run_graph" --graph="$out/train.pb" --init=save/restore_all \
    --target=train --steps="$k" --fetch=loss --output_dir="$out/sf_train_$k" \
    save/Const="$out/ckpt/model" x=@"$out/x.npy" y=@"$out/y.npy" \
    > "$out/train_$k.log" 2>&1 || { cat "$out/train_$k.log"; exit 1; }
done

"$TF_PYTHON" "$script" check "$out" 2>&1 | grep -v "^WARNING\|^I0000\|^E0000" || exit 1
echo PASSED
