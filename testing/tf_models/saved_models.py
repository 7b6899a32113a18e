"""SavedModels: one written by TF2's tf.saved_model.save and one by TF1's
SavedModelBuilder. The SavedModel directory lives inside the case
directory ("saved_model"); feeds and fetches are the serving signature's
input and output keys.
"""

import os

import numpy as np

from zoo_common import Model, glorot, rng, tf, write_case

v1 = tf.compat.v1


class _Affine(tf.Module):
    def __init__(self):
        super().__init__(name="affine")
        r = rng(50)
        self.w = tf.Variable(glorot(r, (4, 3)), name="w")
        self.b = tf.Variable(np.array([0.1, -0.2, 0.3], np.float32), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.nn.relu(tf.matmul(x, self.w) + self.b)}


def tf2_saved_model(model_dir):
    module = _Affine()
    os.makedirs(model_dir, exist_ok=True)
    tf.saved_model.save(module, os.path.join(model_dir, "saved_model"),
                        signatures={"serving_default": module.__call__.get_concrete_function()})
    x = rng(51).standard_normal([2, 4]).astype(np.float32)
    return [write_case(
        model_dir, None, saved_model="saved_model", tags=["serve"],
        signature="serving_default", feeds={"x": x}, fetches=["y"],
        note="TF2 SavedModel (tf.saved_model.save of a tf.Module), serving_default")]


def tf1_saved_model(model_dir):
    graph = tf.Graph()
    export = os.path.join(model_dir, "saved_model")
    with graph.as_default():
        r = rng(52)
        x = v1.placeholder(tf.float32, [None, 5], name="x")
        w = v1.get_variable("w", initializer=glorot(r, (5, 3)), use_resource=False)
        b = v1.get_variable("b", initializer=np.zeros([3], np.float32), use_resource=False)
        y = tf.nn.softmax(tf.matmul(x, w) + b, name="probabilities")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(export)
            builder.add_meta_graph_and_variables(
                sess, [v1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": v1.saved_model.predict_signature_def(
                    inputs={"x": x}, outputs={"probabilities": y})})
            builder.save()
    x_value = rng(53).standard_normal([3, 5]).astype(np.float32)
    return [write_case(
        model_dir, None, saved_model="saved_model", tags=["serve"],
        signature="serving_default", feeds={"x": x_value}, fetches=["probabilities"],
        note="TF1 SavedModel (SavedModelBuilder, ref variables), serving_default")]


MODELS = [
    Model("tf2_saved_model", tf2_saved_model, True,
          "TF2 SavedModel of a tf.Module, serving_default signature"),
    Model("tf1_saved_model", tf1_saved_model, True,
          "TF1 SavedModelBuilder export with variables and a predict signature"),
]
