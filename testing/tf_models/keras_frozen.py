"""Frozen Keras inference graphs: a Keras model (Keras 3 on TensorFlow,
random weights from a fixed seed, nothing downloaded) called with
training=False inside a tf.function whose input has an unknown batch
dimension, frozen with convert_variables_to_constants_v2 (the variables
become Const nodes) and written as one case per batch size (1 and 2), each
fetching the model's output for a fixed random input.

Models with control flow (the LSTM) are frozen twice: with the control flow
lowered to TF1 dataflow (Switch/Merge/Enter/Exit) and kept functional
(While with its body and condition in the graph's function library).
"""

import keras
import numpy as np
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2)

from zoo_common import Model, rng, tf, write_case

BATCHES = (1, 2)


def _freeze(model, input_shape, lower_control_flow):
    """Returns (graph_def, input tensor name, output tensor name)."""
    @tf.function(input_signature=[
        tf.TensorSpec([None] + list(input_shape), tf.float32, name="input")])
    def serve(x):
        return model(x, training=False)

    frozen = convert_variables_to_constants_v2(
        serve.get_concrete_function(), lower_control_flow=lower_control_flow)
    assert len(frozen.inputs) == 1 and len(frozen.outputs) == 1
    graph_def = frozen.graph.as_graph_def()
    # Freezing emits the nodes in an order that varies from run to run;
    # sorted by name, a regenerated golden keeps its bytes.
    nodes = sorted(graph_def.node, key=lambda n: n.name)
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    return graph_def, frozen.inputs[0].name, frozen.outputs[0].name


def _calibrate_batch_norm(model, input_shape, seed):
    """Sets every BatchNormalization layer's moving mean and variance to the
    statistics of its input on a fixed random batch, in layer order, as
    training would. With the initial statistics (0 and 1) and random
    weights, MobileNetV2's activations shrink to about 1e-10 and its output
    is a uniform softmax that would hide any difference."""
    x = rng(seed).standard_normal([4] + list(input_shape)).astype(np.float32)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            a = np.asarray(keras.Model(model.input, layer.input)(x, training=False))
            axes = tuple(range(a.ndim - 1))
            layer.moving_mean.assign(a.mean(axis=axes))
            layer.moving_variance.assign(a.var(axis=axes))


def _frozen_cases(model_dir, make_model, input_shape, seed, note, lowerings=(True,),
                  calibrate=False):
    """One case per lowering (a variant directory when there are two) and
    batch size: <model_dir>[/lowered|/functional]/batch<N>."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(seed)
    model = make_model()
    if calibrate:
        _calibrate_batch_norm(model, input_shape, seed + 100)
    cases = []
    for lower in lowerings:
        graph_def, in_name, out_name = _freeze(model, input_shape, lower)
        prefix = ""
        if len(lowerings) > 1:
            prefix = ("lowered" if lower else "functional") + "/"
        kind = "control flow lowered" if lower else "functional control flow"
        for batch in BATCHES:
            x = rng(seed + batch).standard_normal([batch] + list(input_shape)).astype(np.float32)
            cases.append(write_case(
                model_dir, "%sbatch%d" % (prefix, batch), graph_def=graph_def,
                feeds={in_name: x}, fetches=[out_name],
                note="%s, frozen (%s), batch %d" % (note, kind, batch)))
    keras.backend.clear_session()
    return cases


def mobilenet_v2(model_dir):
    return _frozen_cases(
        model_dir,
        lambda: keras.applications.MobileNetV2(
            input_shape=(96, 96, 3), alpha=0.35, weights=None, classes=10),
        [96, 96, 3], 10,
        "MobileNetV2 alpha 0.35, 96x96, 10 classes, random weights, batch norm "
        "statistics calibrated on a random batch", calibrate=True)


def resnet50(model_dir):
    return _frozen_cases(
        model_dir,
        lambda: keras.applications.ResNet50(input_shape=(224, 224, 3), weights=None),
        [224, 224, 3], 20, "ResNet-50, 224x224, 1000 classes, random weights")


def _transformer_encoder():
    seq, d_model, heads = 16, 32, 2
    inputs = keras.Input((seq, d_model))
    attn = keras.layers.MultiHeadAttention(num_heads=heads, key_dim=d_model // heads)(inputs, inputs)
    x = keras.layers.LayerNormalization(epsilon=1e-6)(inputs + attn)
    ff = keras.layers.Dense(4 * d_model, activation="gelu")(x)
    ff = keras.layers.Dense(d_model)(ff)
    x = keras.layers.LayerNormalization(epsilon=1e-6)(x + ff)
    x = keras.layers.GlobalAveragePooling1D()(x)
    outputs = keras.layers.Dense(4, activation="softmax")(x)
    return keras.Model(inputs, outputs)


def transformer_encoder(model_dir):
    return _frozen_cases(
        model_dir, _transformer_encoder, [16, 32], 30,
        "Transformer encoder block (MultiHeadAttention 2 heads, LayerNormalization, "
        "GELU feed-forward), seq 16, d_model 32, mean-pooled 4-way softmax")


def _lstm_classifier():
    inputs = keras.Input((12, 8))
    x = keras.layers.LSTM(16)(inputs)
    outputs = keras.layers.Dense(3, activation="softmax")(x)
    return keras.Model(inputs, outputs)


def keras_lstm(model_dir):
    return _frozen_cases(
        model_dir, _lstm_classifier, [12, 8], 40,
        "Keras LSTM(16) classifier over 12 steps of 8 features, 3-way softmax",
        lowerings=(True, False))


MODELS = [
    Model("mobilenet_v2", mobilenet_v2, True,
          "Keras MobileNetV2 (alpha 0.35, 96x96, 10 classes), frozen, batch 1 and 2"),
    Model("resnet50", resnet50, False,
          "Keras ResNet-50 (224x224), frozen, batch 1 and 2 (about 100 MB a case)"),
    Model("transformer_encoder", transformer_encoder, True,
          "Keras Transformer encoder block, frozen, batch 1 and 2"),
    Model("keras_lstm", keras_lstm, True,
          "Keras LSTM classifier, frozen lowered and functional, batch 1 and 2"),
]
