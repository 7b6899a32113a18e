"""TF1-style graphs built with tf.compat.v1 inside a tf.Graph: small models
trained for 20 steps, control-flow inference graphs, and a Saver round trip.

Training cases run "init" once, then 20 steps of
Session.run([loss, train_op]) on one fixed feed batch, and record the loss
of every step. The loss is computed in the forward pass, which every update
waits for (the optimizers gate each op's gradients), so fetching it never
races with the step's variable updates.

Initial values are fixed NumPy draws stored as constants in the graph, so
"init" runs no random ops. Control flow is TF1's (Switch/Merge,
Enter/Exit/NextIteration, TensorArrayV3) except in the *_functional models,
which build the same programs as If/While ops with a function library.
Most models use ref variables (VariableV2); the GRU, the gradient clipping
model and part of the Saver model use resource variables.
"""

import numpy as np

from zoo_common import Model, control_flow_v1, control_flow_v2, glorot, rng, tf, write_case

v1 = tf.compat.v1
STEPS = 20


def _var(name, value, resource=False):
    return v1.get_variable(name, initializer=value, use_resource=resource)


def _dense(x, r, n_in, n_out, name, resource=False):
    w = _var(name + "/kernel", glorot(r, (n_in, n_out)), resource)
    b = _var(name + "/bias", np.zeros([n_out], np.float32), resource)
    return tf.matmul(x, w) + b


def _conv(x, r, k, c_in, c_out, name, padding="VALID"):
    w = _var(name + "/kernel", glorot(r, (k, k, c_in, c_out)))
    b = _var(name + "/bias", np.zeros([c_out], np.float32))
    return tf.nn.bias_add(tf.nn.conv2d(x, w, strides=1, padding=padding), b)


def _train_case(model_dir, build, note):
    """build() runs inside a fresh graph and returns (loss, train_op,
    {placeholder: value}); writes the 20-step training case."""
    graph = tf.Graph()
    with graph.as_default(), control_flow_v1():
        loss, train_op, feeds = build()
        init = v1.global_variables_initializer()
        assert init.name == "init", init.name
    return [write_case(
        model_dir, None, graph_def=graph.as_graph_def(),
        feeds={p.name: v for p, v in feeds.items()},
        init_targets=["init"], fetches=[loss.name], targets=[train_op.name],
        steps=STEPS, note=note)]


# --- training models -------------------------------------------------------

def mlp_adam_graph():
    """The zoo's MLP in the current graph: (loss, train_op, feeds). Also
    trained by TensorFlow's own client on a stepflow cluster
    (runtime/distributed/rpc/tf_client_program.py)."""
    r = rng(1)
    x = v1.placeholder(tf.float32, [16, 20], name="x")
    y = v1.placeholder(tf.float32, [16, 4], name="y")
    h = tf.nn.relu(_dense(x, r, 20, 32, "fc1"))
    h = tf.nn.relu(_dense(h, r, 32, 16, "fc2"))
    logits = _dense(h, r, 16, 4, "out")
    loss = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits),
        name="loss")
    train = v1.train.AdamOptimizer(0.01).minimize(loss, name="train")
    d = rng(101)
    labels = np.eye(4, dtype=np.float32)[d.randint(0, 4, 16)]
    return loss, train, {x: d.randn(16, 20).astype(np.float32), y: labels}


def mlp_adam(model_dir):
    return _train_case(model_dir, mlp_adam_graph,
                       "MLP 20-32-16-4, softmax cross-entropy, Adam, ref variables")


def lenet5_momentum(model_dir):
    def build():
        r = rng(2)
        x = v1.placeholder(tf.float32, [8, 32, 32, 1], name="images")
        y = v1.placeholder(tf.int32, [8], name="labels")
        h = tf.nn.tanh(_conv(x, r, 5, 1, 6, "c1"))                   # 28x28x6
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")                       # 14x14x6
        h = tf.nn.tanh(_conv(h, r, 5, 6, 16, "c3"))                  # 10x10x16
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")                       # 5x5x16
        h = tf.reshape(h, [8, 400])
        h = tf.nn.tanh(_dense(h, r, 400, 120, "f5"))
        h = tf.nn.tanh(_dense(h, r, 120, 84, "f6"))
        logits = _dense(h, r, 84, 10, "out")
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
            name="loss")
        train = v1.train.MomentumOptimizer(0.05, 0.9).minimize(loss, name="train")
        d = rng(102)
        return loss, train, {x: d.rand(8, 32, 32, 1).astype(np.float32),
                             y: d.randint(0, 10, 8).astype(np.int32)}
    return _train_case(model_dir, build,
                       "LeNet-5 (conv5-pool-conv5-pool-120-84-10, tanh), Momentum, ref variables")


def cnn_batchnorm_dropout(model_dir):
    def build():
        v1.set_random_seed(1234)
        r = rng(3)
        x = v1.placeholder(tf.float32, [8, 16, 16, 3], name="images")
        y = v1.placeholder(tf.int32, [8], name="labels")
        updates = []

        def moving(name, value, batch_stat):
            var = _var(name, value)
            updates.append(v1.assign_sub(var, (var - batch_stat) * 0.1))

        # Fused batch norm (FusedBatchNormV3) in training mode.
        h = _conv(x, r, 3, 3, 8, "conv1", padding="SAME")
        scale = _var("bn1/gamma", np.ones([8], np.float32))
        offset = _var("bn1/beta", np.zeros([8], np.float32))
        h, mean, variance = v1.nn.fused_batch_norm(h, scale, offset, is_training=True)
        moving("bn1/moving_mean", np.zeros([8], np.float32), mean)
        moving("bn1/moving_variance", np.ones([8], np.float32), variance)
        h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")           # 8x8x8
        # Batch norm from moments (Mean, SquaredDifference, Rsqrt).
        h = _conv(h, r, 3, 8, 16, "conv2", padding="SAME")
        mean, variance = tf.nn.moments(h, axes=[0, 1, 2])
        scale = _var("bn2/gamma", np.ones([16], np.float32))
        offset = _var("bn2/beta", np.zeros([16], np.float32))
        h = tf.nn.batch_normalization(h, mean, variance, offset, scale, 1e-3)
        moving("bn2/moving_mean", np.zeros([16], np.float32), mean)
        moving("bn2/moving_variance", np.ones([16], np.float32), variance)
        h = tf.reduce_mean(tf.nn.relu(h), axis=[1, 2])                # 8x16
        h = tf.nn.dropout(h, rate=0.25, seed=5)
        logits = _dense(h, r, 16, 5, "out")
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
            name="loss")
        minimize = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        train = tf.group(minimize, *updates, name="train")
        d = rng(103)
        return loss, train, {x: d.randn(8, 16, 16, 3).astype(np.float32),
                             y: d.randint(0, 5, 8).astype(np.int32)}
    return _train_case(
        model_dir, build,
        "CNN with batch norm in training mode (fused and from moments, moving "
        "averages updated by the train op) and seeded dropout, SGD, ref variables")


class _LSTMCell(object):
    """A plain LSTM cell (i, f, g, o gates from one matmul) with its
    weights created outside the loop, as dynamic_rnn wants a cell."""

    def __init__(self, r, n_in, units, resource):
        self.units = units
        self.kernel = _var("lstm/kernel", glorot(r, (n_in + units, 4 * units)), resource)
        bias = np.zeros([4 * units], np.float32)
        bias[units:2 * units] = 1.0  # forget-gate bias
        self.bias = _var("lstm/bias", bias, resource)

    @property
    def state_size(self):
        return (self.units, self.units)

    @property
    def output_size(self):
        return self.units

    def zero_state(self, batch, dtype):
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.units], dtype))

    def __call__(self, inputs, state):
        c, h = state
        z = tf.matmul(tf.concat([inputs, h], 1), self.kernel) + self.bias
        i, f, g, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, (c, h)


class _GRUCell(object):
    """A plain GRU cell (update and reset gates, then the candidate)."""

    def __init__(self, r, n_in, units, resource):
        self.units = units
        self.gate_kernel = _var("gru/gates/kernel", glorot(r, (n_in + units, 2 * units)), resource)
        self.gate_bias = _var("gru/gates/bias", np.ones([2 * units], np.float32), resource)
        self.cand_kernel = _var("gru/candidate/kernel", glorot(r, (n_in + units, units)), resource)
        self.cand_bias = _var("gru/candidate/bias", np.zeros([units], np.float32), resource)

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def zero_state(self, batch, dtype):
        return tf.zeros([batch, self.units], dtype)

    def __call__(self, inputs, h):
        gates = tf.sigmoid(tf.matmul(tf.concat([inputs, h], 1), self.gate_kernel) + self.gate_bias)
        r, u = tf.split(gates, 2, axis=1)
        c = tf.tanh(tf.matmul(tf.concat([inputs, r * h], 1), self.cand_kernel) + self.cand_bias)
        h = u * h + (1 - u) * c
        return h, h


def _rnn_rmsprop(model_dir, cell_class, resource, note):
    def build():
        r = rng(4)
        x = v1.placeholder(tf.float32, [8, 10, 6], name="sequences")
        y = v1.placeholder(tf.int32, [8], name="labels")
        cell = cell_class(r, 6, 16, resource)
        outputs, _ = v1.nn.dynamic_rnn(cell, x, initial_state=cell.zero_state(8, tf.float32))
        logits = _dense(outputs[:, -1, :], r, 16, 3, "out", resource)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
            name="loss")
        train = v1.train.RMSPropOptimizer(0.01).minimize(loss, name="train")
        d = rng(104)
        return loss, train, {x: d.randn(8, 10, 6).astype(np.float32),
                             y: d.randint(0, 3, 8).astype(np.int32)}
    return _train_case(model_dir, build, note)


def lstm_rmsprop(model_dir):
    return _rnn_rmsprop(model_dir, _LSTMCell, False,
                        "LSTM(16) over 10 steps via dynamic_rnn (while loop, TensorArray; "
                        "its gradient uses stacks), RMSProp, ref variables")


def gru_rmsprop(model_dir):
    return _rnn_rmsprop(model_dir, _GRUCell, True,
                        "GRU(16) over 10 steps via dynamic_rnn, RMSProp, resource variables")


def embedding_classifier(model_dir):
    def build():
        r = rng(5)
        ids = v1.placeholder(tf.int32, [16, 12], name="token_ids")
        y = v1.placeholder(tf.int32, [16], name="labels")
        table = _var("embedding", r.uniform(-0.1, 0.1, (50, 8)).astype(np.float32))
        h = tf.reduce_mean(tf.nn.embedding_lookup(table, ids), axis=1)
        h = tf.nn.relu(_dense(h, r, 8, 16, "fc"))
        logits = _dense(h, r, 16, 3, "out")
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
            name="loss")
        train = v1.train.AdagradOptimizer(0.5).minimize(loss, name="train")
        d = rng(105)
        return loss, train, {ids: d.randint(0, 50, (16, 12)).astype(np.int32),
                             y: d.randint(0, 3, 16).astype(np.int32)}
    return _train_case(
        model_dir, build,
        "text classifier: embedding lookup (50x8, sparse gradient), mean over "
        "tokens, dense, sparse softmax cross-entropy, Adagrad, ref variables")


def grad_clip_global_norm(model_dir):
    def build():
        r = rng(6)
        x = v1.placeholder(tf.float32, [32, 10], name="x")
        y = v1.placeholder(tf.float32, [32, 1], name="y")
        h = tf.nn.relu(_dense(x, r, 10, 16, "fc1", resource=True))
        pred = _dense(h, r, 16, 1, "out", resource=True)
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        opt = v1.train.GradientDescentOptimizer(0.1)
        grads, variables = zip(*opt.compute_gradients(loss))
        clipped, _ = tf.clip_by_global_norm(grads, 0.5)
        train = opt.apply_gradients(zip(clipped, variables), name="train")
        d = rng(106)
        xs = d.randn(32, 10).astype(np.float32)
        ys = (xs.sum(axis=1, keepdims=True) * 2.0 + 1.0).astype(np.float32)
        return loss, train, {x: xs, y: ys}
    return _train_case(
        model_dir, build,
        "MLP regression with gradients clipped by global norm 0.5, SGD, resource variables")


# --- control flow (inference) ----------------------------------------------

def _branch_cases(model_dir, build, feed_sets, note, functional):
    """build() returns (output tensor, [placeholders]); one case per feed
    set (variant name -> values in placeholder order)."""
    graph = tf.Graph()
    with graph.as_default(), (control_flow_v2() if functional else control_flow_v1()):
        out, placeholders = build()
    graph_def = graph.as_graph_def()
    cases = []
    for variant, values in feed_sets:
        cases.append(write_case(
            model_dir, variant, graph_def=graph_def,
            feeds={p.name: v for p, v in zip(placeholders, values)},
            fetches=[out.name], note=note + " (%s)" % variant))
    return cases


_X4 = np.array([1.5, -2.0, 0.25, 3.0], np.float32)


def _cond_build():
    pred = v1.placeholder(tf.bool, [], name="pred")
    x = v1.placeholder(tf.float32, [4], name="x")
    w = tf.constant([0.5, -1.0, 2.0, 1.0], name="w")
    out = tf.cond(pred, lambda: tf.nn.relu(x * w + 1.0), lambda: tf.square(x) - w)
    return tf.identity(out, name="out"), [pred, x]


_COND_FEEDS = [("pred_true", [np.array(True), _X4]),
               ("pred_false", [np.array(False), _X4])]


def cond_branches(model_dir):
    return _branch_cases(model_dir, _cond_build, _COND_FEEDS,
                         "tf.cond with a fed predicate, TF1 Switch/Merge", False)


def cond_functional(model_dir):
    return _branch_cases(model_dir, _cond_build, _COND_FEEDS,
                         "tf.cond with a fed predicate as a functional If", True)


def case_branches(model_dir):
    def build():
        i = v1.placeholder(tf.int32, [], name="branch")
        x = v1.placeholder(tf.float32, [4], name="x")
        out = tf.case([(tf.equal(i, 0), lambda: x + 10.0),
                       (tf.equal(i, 1), lambda: tf.reduce_sum(x) * x)],
                      default=lambda: -x)
        return tf.identity(out, name="out"), [i, x]
    feeds = [("branch_%d" % b, [np.array(b, np.int32), _X4]) for b in (0, 1, 2)]
    return _branch_cases(model_dir, build, feeds,
                         "tf.case over a fed index (with a default), "
                         "TF1 control flow", False)


def _while_build():
    n = v1.placeholder(tf.int32, [], name="n")
    x = v1.placeholder(tf.float32, [3], name="x")

    def outer_body(i, acc):
        def inner_body(j, a):
            return j + 1, a * 0.5 + tf.cast(i * j, tf.float32)
        _, acc = tf.while_loop(lambda j, a: j < i + 2, inner_body,
                               (tf.constant(0), acc))
        return i + 1, acc + x

    _, out = tf.while_loop(lambda i, acc: i < n, outer_body, (tf.constant(0), x))
    return tf.identity(out, name="out"), [n, x]


_WHILE_FEEDS = [("n_0", [np.array(0, np.int32), np.array([1.0, 2.0, 3.0], np.float32)]),
                ("n_4", [np.array(4, np.int32), np.array([1.0, -2.0, 0.5], np.float32)])]


def while_nested(model_dir):
    return _branch_cases(model_dir, _while_build, _WHILE_FEEDS,
                         "nested tf.while_loop, inner trip count set by the outer "
                         "counter, TF1 frames", False)


def while_nested_functional(model_dir):
    return _branch_cases(model_dir, _while_build, _WHILE_FEEDS,
                         "nested tf.while_loop as functional While ops", True)


# --- Saver -------------------------------------------------------------------

def saver_save_restore(model_dir):
    graph = tf.Graph()
    with graph.as_default():
        w = _var("w", np.arange(6, dtype=np.float32).reshape(2, 3))
        b = _var("b", np.array([0.5, -0.5, 2.0], np.float32), resource=True)
        init = v1.global_variables_initializer()
        saver = v1.train.Saver([w, b])
        change = tf.group(v1.assign(w, tf.fill([2, 3], -7.0)),
                          v1.assign(b, tf.zeros([3])), name="change")
        w_value = tf.identity(w, name="w_value")
        b_value = tf.identity(b.read_value(), name="b_value")
    sd = saver.saver_def
    save_op = sd.save_tensor_name.split(":")[0]
    return [write_case(
        model_dir, None, graph_def=graph.as_graph_def(),
        feeds={sd.filename_tensor_name: np.array(b"model.ckpt")},
        init_targets=[init.name, save_op, change.name, sd.restore_op_name],
        fetches=[w_value.name, b_value.name], run_in_scratch_dir=True,
        note="Saver: init, save to a relative path, overwrite the variables, "
             "restore; the fetched values are the saved ones (a ref and a "
             "resource variable)")]


MODELS = [
    Model("mlp_adam", mlp_adam, True, "MLP classifier, Adam, 20 steps"),
    Model("lenet5_momentum", lenet5_momentum, True, "LeNet-5, Momentum, 20 steps"),
    Model("cnn_batchnorm_dropout", cnn_batchnorm_dropout, True,
          "CNN with training-mode batch norm and dropout, SGD, 20 steps"),
    Model("lstm_rmsprop", lstm_rmsprop, True,
          "LSTM through dynamic_rnn (while loop, TensorArray), RMSProp, 20 steps"),
    Model("gru_rmsprop", gru_rmsprop, True,
          "GRU through dynamic_rnn, resource variables, RMSProp, 20 steps"),
    Model("embedding_classifier", embedding_classifier, True,
          "embedding lookup text classifier, sparse softmax cross-entropy, Adagrad, 20 steps"),
    Model("grad_clip_global_norm", grad_clip_global_norm, True,
          "gradient clipping by global norm, resource variables, SGD, 20 steps"),
    Model("cond_branches", cond_branches, True, "tf.cond (TF1), both branches"),
    Model("cond_functional", cond_functional, True, "tf.cond as If, both branches"),
    Model("case_branches", case_branches, True, "tf.case (TF1), all three branches"),
    Model("while_nested", while_nested, True, "nested tf.while_loop (TF1), 0 and 4 outer trips"),
    Model("while_nested_functional", while_nested_functional, True,
          "nested tf.while_loop as While, 0 and 4 outer trips"),
    Model("saver_save_restore", saver_save_restore, True,
          "Saver save, overwrite, restore, fetch"),
]
