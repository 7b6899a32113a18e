"""Checkpoint interchange with TensorFlow, for checkpoint_live_test.sh.

  checkpoint_interop.py write OUT
      TensorFlow writes, under OUT:
        tf_ckpt/all        a checkpoint with one tensor per savable dtype
                           (SaveV2), tf_ckpt/all_sharded the same in two
                           data shards (two SaveV2 and MergeV2Checkpoints),
                           and restore.pb: a graph whose RestoreV2 nodes
                           read every tensor of each (fetch restore:i,
                           restore_sharded:i) and a partial restore of two
                           slices (fetch partial:i);
        save.pb            a graph of constants (one per dtype) saved by
                           SaveV2 as one checkpoint (target save_all), by
                           two SaveV2 merged with MergeV2Checkpoints into
                           two data shards (target save_sharded) and as
                           row slices of one tensor (target save_sliced),
                           under the prefix fed to "prefix";
        train.pb, ckpt/model   a TF1 MLP trained 5 steps by Adam (slots in
                           the checkpoint), saved by tf.compat.v1.train.
                           Saver; x.npy, y.npy its batch; tf_losses.npy the
                           loss after each of 5 more steps continued from
                           the checkpoint (each loss read in its own run
                           after the step, as run_graph --print_every does).
  checkpoint_interop.py check OUT
      After stepflow ran: TensorFlow reads stepflow's checkpoints
      (tf.train.load_checkpoint and tf.raw_ops.RestoreV2, partial slices
      too) and every value must be TensorFlow's bit for bit; stepflow's
      restores of TensorFlow's checkpoint (OUT/sf_restore/*) must be too;
      stepflow's continued training losses (OUT/sf_train_<k>/loss_0.npy)
      must equal TensorFlow's within the oracle tolerance.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import tensor_pb2  # noqa: E402

tf1 = tf.compat.v1


def dtype_values():
    return [
        ("f32", np.array([[1.5, -2.0, 3.25], [0.0, -0.0, 1e-30]], np.float32)),
        ("f64", np.array([np.pi, -1e300], np.float64)),
        ("f16", np.array([1.0, -2.5, 65504.0], np.float16)),
        ("bf16", tf.constant([1.0, -3.0, 0.1], tf.bfloat16)),
        ("i8", np.array([-128, 127, 5], np.int8)),
        ("i16", np.array([-32768, 32767], np.int16)),
        ("i32", np.array([[1, -2], [3, 2147483647]], np.int32)),
        ("i64", np.array([-9223372036854775808, 42], np.int64)),
        ("u8", np.array([0, 255, 7], np.uint8)),
        ("u16", np.array([65535, 1], np.uint16)),
        ("u32", np.array([4294967295, 2], np.uint32)),
        ("u64", np.array([18446744073709551615, 3], np.uint64)),
        ("c64", np.array([1 + 2j, -3.5 - 0.5j], np.complex64)),
        ("c128", np.array([2 - 1j], np.complex128)),
        ("bool", np.array([True, False, True])),
        ("str", np.array([[b"hello", b""], [b"x" * 200, b"\x00\xff"]], object)),
        ("scalar", np.float32(7.0)),
        ("empty", np.zeros([0, 3], np.float32)),
    ]


def as_bytes(value):
    """A value's exact bits (strings as their bytes)."""
    if isinstance(value, tf.Tensor):
        value = value.numpy()
    a = np.asarray(value)
    if a.dtype == object or a.dtype.kind == "S":
        # (.npy holds strings fixed-width: its values end at their last
        # non-NUL byte, which none of these strings has.)
        return [bytes(x) for x in a.reshape(-1)], a.shape
    if a.dtype.name == "bfloat16":
        return a.view(np.uint16).tobytes(), a.shape
    return a.tobytes(), a.shape


def same(name, got, want):
    g, w = as_bytes(got), as_bytes(want)
    if g != w:
        raise SystemExit(f"FAILED: {name}: got {got!r}, want {want!r}")


def write_restore_graph(out):
    prefix = f"{out}/tf_ckpt/all"
    values = dtype_values()
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=[n for n, _ in values],
                      shape_and_slices=[""] * len(values),
                      tensors=[tf.constant(v) for _, v in values])
    # The same tensors in two per-device saves merged into two data shards.
    names = [n for n, _ in values]
    half = len(names) // 2
    parts = [f"{prefix}_temp/part-0000{i}-of-00002" for i in range(2)]
    for part, chunk in [(parts[0], values[:half]), (parts[1], values[half:])]:
        tf.raw_ops.SaveV2(prefix=part, tensor_names=[n for n, _ in chunk],
                          shape_and_slices=[""] * len(chunk),
                          tensors=[tf.constant(v) for _, v in chunk])
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=parts,
                                  destination_prefix=f"{prefix}_sharded")
    g = tf1.Graph()
    with g.as_default():
        for suffix, node in [("", "restore"), ("_sharded", "restore_sharded")]:
            tf1.raw_ops.RestoreV2(
                prefix=tf1.constant(prefix + suffix), tensor_names=names,
                shape_and_slices=[""] * len(values),
                dtypes=[tf.constant(v).dtype for _, v in values], name=node)
        # Rows 1..2 of f32 ([2, 3]: "2 3 1,1:-") and column 1 of i32.
        tf1.raw_ops.RestoreV2(
            prefix=tf1.constant(prefix), tensor_names=["f32", "i32"],
            shape_and_slices=["2 3 1,1:-", "2 2 -:1,1"],
            dtypes=[tf.float32, tf.int32], name="partial")
    with open(f"{out}/restore.pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def write_save_graph(out):
    values = dtype_values()
    g = tf1.Graph()
    with g.as_default():
        prefix = tf1.placeholder(tf.string, [], name="prefix")
        consts = [tf1.constant(v, name=f"c_{n}") for n, v in values]
        names = [n for n, _ in values]
        tf1.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                           shape_and_slices=[""] * len(names), tensors=consts,
                           name="save_all")
        half = len(names) // 2
        p0 = tf1.strings.join([prefix, "_temp/part-00000-of-00002"])
        p1 = tf1.strings.join([prefix, "_temp/part-00001-of-00002"])
        s0 = tf1.raw_ops.SaveV2(prefix=p0, tensor_names=names[:half],
                                shape_and_slices=[""] * half,
                                tensors=consts[:half])
        s1 = tf1.raw_ops.SaveV2(prefix=p1, tensor_names=names[half:],
                                shape_and_slices=[""] * (len(names) - half),
                                tensors=consts[half:])
        with tf1.control_dependencies([s0, s1]):
            tf1.raw_ops.MergeV2Checkpoints(
                checkpoint_prefixes=tf1.stack([p0, p1]),
                destination_prefix=tf1.strings.join([prefix, "_sharded"]),
                name="save_sharded")
        part = tf1.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        tf1.raw_ops.SaveV2(
            prefix=tf1.strings.join([prefix, "_sliced"]),
            tensor_names=["part", "part"],
            shape_and_slices=["4 3 0,2:-", "4 3 2,2:-"],
            tensors=[part[0:2], part[2:4]], name="save_sliced")
    with open(f"{out}/save.pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def write_training(out):
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (8, 4)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [0.25], [2.0]], np.float32) + 0.1)
    y = y.astype(np.float32)
    np.save(f"{out}/x.npy", x)
    np.save(f"{out}/y.npy", y)
    g = tf1.Graph()
    with g.as_default():
        xp = tf1.placeholder(tf.float32, [8, 4], name="x")
        yp = tf1.placeholder(tf.float32, [8, 1], name="y")
        w1 = tf1.Variable(rng.uniform(-0.5, 0.5, (4, 6)).astype(np.float32),
                          name="w1")
        b1 = tf1.Variable(np.zeros(6, np.float32), name="b1")
        w2 = tf1.Variable(rng.uniform(-0.5, 0.5, (6, 1)).astype(np.float32),
                          name="w2")
        b2 = tf1.Variable(np.zeros(1, np.float32), name="b2")
        h = tf1.nn.relu(tf1.matmul(xp, w1) + b1)
        pred = tf1.matmul(h, w2) + b2
        tf1.identity(tf1.reduce_mean(tf1.square(pred - yp)), name="loss")
        loss = g.get_tensor_by_name("loss:0")
        tf1.train.AdamOptimizer(0.05).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver()
        assert saver.saver_def.restore_op_name == "save/restore_all"
        assert saver.saver_def.filename_tensor_name == "save/Const:0"
        with tf1.Session(graph=g) as sess:
            sess.run(init)
            feeds = {xp: x, yp: y}
            for _ in range(5):
                sess.run("train", feeds)
            saver.save(sess, f"{out}/ckpt/model")
        with tf1.Session(graph=g) as sess:
            saver.restore(sess, f"{out}/ckpt/model")
            losses = []
            for _ in range(5):
                sess.run("train", feeds)
                losses.append(sess.run(loss, feeds))
    np.save(f"{out}/tf_losses.npy", np.array(losses, np.float32))
    with open(f"{out}/train.pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def load_output(path_base):
    if os.path.exists(path_base + ".npy"):
        return np.load(path_base + ".npy", allow_pickle=True)
    proto = tensor_pb2.TensorProto()
    with open(path_base + ".pb", "rb") as f:
        proto.ParseFromString(f.read())
    return tf.make_ndarray(proto)


def check(out):
    values = dtype_values()
    # stepflow's checkpoints, read by TensorFlow.
    for suffix, names in [("", [n for n, _ in values]),
                          ("_sharded", [n for n, _ in values])]:
        prefix = f"{out}/sf_ckpt/all{suffix}"
        reader = tf.train.load_checkpoint(prefix)
        for name, want in values:
            same(f"load_checkpoint({prefix})[{name}]",
                 reader.get_tensor(name), want)
        got = tf.raw_ops.RestoreV2(
            prefix=prefix, tensor_names=names,
            shape_and_slices=[""] * len(names),
            dtypes=[tf.constant(v).dtype for _, v in values])
        for (name, want), t in zip(values, got):
            same(f"RestoreV2({prefix})[{name}]", t, want)
    shards = sorted(f for f in os.listdir(f"{out}/sf_ckpt")
                    if f.startswith("all_sharded.data-"))
    if shards != ["all_sharded.data-00000-of-00002",
                  "all_sharded.data-00001-of-00002"]:
        raise SystemExit(f"FAILED: sharded checkpoint files {shards}")
    part = np.arange(12, dtype=np.float32).reshape(4, 3)
    sliced = f"{out}/sf_ckpt/all_sliced"
    same("sliced whole", tf.train.load_checkpoint(sliced).get_tensor("part"),
         part)
    rows = tf.raw_ops.RestoreV2(prefix=sliced, tensor_names=["part"],
                                shape_and_slices=["4 3 1,2:-"],
                                dtypes=[tf.float32])[0]
    same("sliced rows 1..2", rows, part[1:3])
    # TensorFlow's checkpoint, restored by stepflow.
    if not os.path.exists(f"{out}/tf_ckpt/all_sharded.data-00001-of-00002"):
        raise SystemExit("FAILED: TensorFlow wrote no second shard")
    for node in ["restore", "restore_sharded"]:
        for i, (name, want) in enumerate(values):
            same(f"stepflow {node} {name}",
                 load_output(f"{out}/sf_restore/{node}_{i}"), want)
    f32 = dict(values)["f32"]
    i32 = dict(values)["i32"]
    same("stepflow partial f32", load_output(f"{out}/sf_restore/partial_0"),
         f32[1:2, :])
    same("stepflow partial i32", load_output(f"{out}/sf_restore/partial_1"),
         i32[:, 1:2])
    # Training continued from TensorFlow's checkpoint.
    tf_losses = np.load(f"{out}/tf_losses.npy")
    sf_losses = np.array([np.load(f"{out}/sf_train_{k}/loss_0.npy")
                          for k in range(1, 6)], np.float32)
    if not np.allclose(sf_losses, tf_losses, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"FAILED: losses {sf_losses} vs TensorFlow's "
                         f"{tf_losses}")
    print("stepflow losses", sf_losses, "TensorFlow's", tf_losses)
    print("every value matches TensorFlow")


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "write":
        os.makedirs(f"{out}/tf_ckpt", exist_ok=True)
        write_restore_graph(out)
        write_save_graph(out)
        write_training(out)
    else:
        check(out)


if __name__ == "__main__":
    main()
