"""Writes TF1 SavedModels (SavedModelBuilder) for saved_model_live_test.sh.

  write_tf1_saved_model.py OUT_DIR

OUT_DIR/binary and OUT_DIR/text (saved_model.pbtxt) hold the same model:
y = x @ w + b with ref variables, an asset file whose path the main op
assigns to a string variable, and a second MetaGraph tagged "train".
OUT_DIR/x.npy is a feed and OUT_DIR/y.npy, OUT_DIR/asset.npy TensorFlow's
results for it (the asset's path as TensorFlow's loader feeds it).
"""

import os
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def write(export, as_text, x_value):
    graph = tf.Graph()
    with graph.as_default():
        rng = np.random.default_rng(7)
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = v1.get_variable("w", initializer=rng.standard_normal([3, 2]).astype(np.float32),
                            use_resource=False)
        b = v1.get_variable("b", initializer=np.array([0.5, -1.0], np.float32),
                            use_resource=False)
        y = tf.add(tf.matmul(x, w), b, name="y")
        vocab = os.path.join(os.path.dirname(export), "vocab.txt")
        with open(vocab, "w") as f:
            f.write("a\nb\n")
        asset_path = tf.constant(vocab, name="asset_path")
        v1.add_to_collection(v1.GraphKeys.ASSET_FILEPATHS, asset_path)
        asset_var = v1.Variable("", name="asset_var", trainable=False,
                                collections=[v1.GraphKeys.LOCAL_VARIABLES],
                                use_resource=False)
        main_op = tf.group(v1.assign(asset_var, asset_path), name="main_op")
        asset_out = tf.identity(asset_var, name="asset_out")
        sig = v1.saved_model.predict_signature_def(
            inputs={"x": x}, outputs={"y": y, "asset": asset_out})
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(export)
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": sig},
                assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
                main_op=main_op)
            builder.add_meta_graph(["train"])
            builder.save(as_text=as_text)
    with v1.Session(graph=tf.Graph()) as sess:
        meta = v1.saved_model.loader.load(sess, ["serve"], export)
        outs = meta.signature_def["serving_default"].outputs
        return sess.run([outs["y"].name, outs["asset"].name],
                        {meta.signature_def["serving_default"].inputs["x"].name: x_value})


def main():
    out = sys.argv[1]
    x_value = np.arange(6, dtype=np.float32).reshape([2, 3]) - 2.5
    np.save(os.path.join(out, "x.npy"), x_value)
    for name, as_text in (("binary", False), ("text", True)):
        os.makedirs(os.path.join(out, name + "_src"), exist_ok=True)
        y, asset = write(os.path.join(out, name + "_src", "export"), as_text, x_value)
        os.rename(os.path.join(out, name + "_src", "export"), os.path.join(out, name))
        np.save(os.path.join(out, name + "_y.npy"), y)
        np.save(os.path.join(out, name + "_asset.npy"),
                np.array(asset.decode().replace(name + "_src/export", name)))


if __name__ == "__main__":
    main()
