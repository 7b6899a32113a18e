"""Op cases for per-step state: TensorArrays (the V3 ops, as tf.TensorArray
builds them in graph mode with control flow v1, and raw) with their
gradients, and stacks (StackV2..., raw and as while-loop gradients save
forward values in them).

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, Spec, grads, raw, set_attr, v1
import numpy as np
import tensorflow as tf


def _array(c, dtype=tf.float32, size=3, **kw):
    """A tf.TensorArray whose size is fed (so shape inference cannot fold
    it)."""
    n = c.feed(np.int32(size), name="size")
    return tf.TensorArray(dtype, size=n, **kw)


class _Cell(object):
    """A small RNN cell (relu, or LSTM-like gates) for dynamic_rnn, its
    weights made outside the loop."""

    def __init__(self, c, n_in, units, lstm):
        self.units, self.lstm = units, lstm
        k = 4 if lstm else 1
        self.w_in = v1.Variable(c.rand(tf.float32, [n_in, k * units], "unit"), name="w_in")
        self.w_h = v1.Variable(c.rand(tf.float32, [units, k * units], "unit"), name="w_h")
        self.bias = v1.Variable(c.rand(tf.float32, [k * units], "unit"), name="bias")
        self.weights = [self.w_in, self.w_h, self.bias]

    @property
    def state_size(self):
        return (self.units, self.units) if self.lstm else self.units

    @property
    def output_size(self):
        return self.units

    def zero_state(self, batch, dtype):
        z = tf.zeros([batch, self.units], dtype)
        return (z, z) if self.lstm else z

    def __call__(self, inputs, state):
        h = state[1] if self.lstm else state
        z = tf.matmul(inputs, self.w_in) + tf.matmul(h, self.w_h) + self.bias
        if not self.lstm:
            h = tf.nn.relu(z)  # Exact: the case tests the arrays, not tanh's ulps.
            return h, h
        i, f, g, o = tf.split(z, 4, axis=1)
        cs = tf.sigmoid(f) * state[0] + tf.sigmoid(i) * tf.tanh(g)
        h = tf.sigmoid(o) * tf.tanh(cs)
        return h, (cs, h)


def tensor_arrays(g):
    op = "TensorArrayWriteV3"
    for t in g.types(op):
        def roundtrip(c, t=t):
            d = DTYPES[t]
            ta = _array(c, d)
            for i in range(3):
                ta = ta.write(i, c.input(d, [2], name="x%d" % i))
            return [ta.read(1), ta.size()]
        g.add(op, "dtype_" + t, roundtrip, golden=(t == "float"))

    def write_twice(c):
        ta = _array(c).write(0, c.input(tf.float32, [2])).write(0, c.input(tf.float32, [2]))
        return [ta.read(0)]
    g.add(op, "write_twice", write_twice, golden=True)
    g.add(op, "index_out_of_range",
          lambda c: [_array(c, size=2).write(2, c.input(tf.float32, [2])).read(0)],
          golden=True)
    g.add(op, "negative_index",
          lambda c: [_array(c, size=2).write(c.feed(np.int32(-1), name="i"),
                                             c.input(tf.float32, [2])).read(0)])

    def shape_mismatch(c):
        ta = _array(c, element_shape=[2], infer_shape=True)
        x = c.input(tf.float32, [3], name="x")
        flow = raw.TensorArrayWriteV3(handle=ta.handle, index=0, value=x, flow_in=ta.flow)
        return [flow]
    g.add(op, "element_shape_mismatch", shape_mismatch)

    def infer_shape(c):
        ta = _array(c, infer_shape=True)
        ta = ta.write(0, c.input(tf.float32, [2])).write(1, c.input(tf.float32, [3]))
        return [ta.read(0)]
    g.add(op, "inferred_shape_mismatch", infer_shape,
          note="identical_element_shapes: the first write fixes the shape")

    def dynamic(c):
        ta = _array(c, size=1, dynamic_size=True)
        ta = ta.write(4, c.input(tf.float32, [2]))
        return [ta.size(), ta.read(4)]
    g.add(op, "dynamic_size", dynamic, golden=True)

    def wrong_dtype(c):
        ta = _array(c)
        x = c.input(tf.int32, [2], name="x")
        return [raw.TensorArrayWriteV3(handle=ta.handle, index=0, value=x, flow_in=ta.flow)]
    g.add(op, "wrong_dtype", wrong_dtype)

    op = "TensorArrayReadV3"
    g.add(op, "out_of_range",
          lambda c: [_array(c, size=2).write(0, c.input(tf.float32, [2])).read(
              c.feed(np.int32(2), name="i"))], golden=True)

    def read_twice(c, clear=True):
        ta = _array(c, clear_after_read=clear).write(0, c.input(tf.float32, [2]))
        a = ta.read(0)
        with tf.control_dependencies([a]):
            b = ta.read(0)
        return [a, b]
    g.add(op, "read_twice_cleared", read_twice, golden=True)
    g.add(op, "read_twice_kept", lambda c: read_twice(c, False))
    g.add(op, "unwritten_known_shape",
          lambda c: [_array(c, element_shape=[2, 3]).read(1)],
          note="an unwritten element of a fully known shape reads as zeros")
    g.add(op, "unwritten_unknown_shape", lambda c: [_array(c).read(1)])

    def read_dtype(c):
        ta = _array(c).write(0, c.input(tf.float32, [2]))
        r = raw.TensorArrayReadV3(handle=ta.handle, index=0, flow_in=ta.flow,
                                  dtype=tf.int32)
        return [r]
    g.add(op, "wrong_dtype", read_dtype)
    g.add(op, "index_not_scalar",
          lambda c: [raw.TensorArrayReadV3(handle=_array(c).handle,
                                           index=c.feed(np.int32([0]), name="i"),
                                           flow_in=tf.constant(0.0), dtype=tf.float32)])

    op = "TensorArrayV3"
    g.add(op, "negative_size", lambda c: [_array(c, size=-1).size()], golden=True)
    g.add(op, "size_not_scalar",
          lambda c: [raw.TensorArrayV3(size=c.feed(np.int32([2]), name="n"),
                                       dtype=tf.float32)[1]])
    g.add(op, "empty_stack",
          lambda c: [_array(c, size=0, element_shape=[2]).stack()],
          note="gathering nothing with a known element shape")
    g.add(op, "empty_stack_unknown_shape",
          lambda c: [_array(c, size=0, infer_shape=False).stack()])

    def rnn(c, lstm):
        x = tf.constant(c.rand(tf.float32, [4, 2, 3]))  # time-major
        cell = _Cell(c, 3, 5, lstm)
        out, state = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32, time_major=True)
        loss = tf.reduce_sum(out * out) + tf.reduce_sum(state)
        gs = tf.gradients(loss, cell.weights)
        return Spec(fetches=[out] + gs, init=[v1.global_variables_initializer()])
    g.add(op, "dynamic_rnn_grad", lambda c: rnn(c, False), golden=True,
          note="tf.compat.v1.nn.dynamic_rnn and its gradients: TensorArrays in a "
               "while loop, stacks for the saved forward values")
    g.add(op, "dynamic_rnn_lstm_grad", lambda c: rnn(c, True))

    op = "TensorArraySizeV3"
    g.add(op, "size", lambda c: [_array(c, size=4).size()], golden=True)

    op = "TensorArrayCloseV3"

    def close(c, then_read):
        ta = _array(c).write(0, c.input(tf.float32, [2]))
        with tf.control_dependencies([ta.flow]):
            closed = ta.close()
        if not then_read:
            return Spec(targets=[closed], fetches=[ta.flow])
        with tf.control_dependencies([closed]):
            r = tf.identity(ta.read(0))
        return [r]
    g.add(op, "close", lambda c: close(c, False), golden=True)
    g.add(op, "read_after_close", lambda c: close(c, True), golden=True)

    op = "TensorArrayGatherV3"
    for t in g.types(op, "dtype"):
        def gather(c, t=t):
            d = DTYPES[t]
            ta = _array(c, d, size=4).unstack(c.input(d, [4, 2], name="x"))
            return [ta.gather(c.feed(np.int32([3, 0, 2]), name="i"))]
        g.add(op, "dtype_" + t, gather, golden=(t == "float"))

    def gather_inconsistent(c):
        ta = _array(c, infer_shape=False)
        ta = ta.write(0, c.input(tf.float32, [2])).write(1, c.input(tf.float32, [3]))
        return [ta.gather([0, 1])]
    g.add(op, "inconsistent_shapes", gather_inconsistent, golden=True)
    g.add(op, "out_of_range",
          lambda c: [_array(c, size=2).unstack(c.input(tf.float32, [2, 2])).gather(
              c.feed(np.int32([0, 2]), name="i"))])
    g.add(op, "stack", lambda c: [_array(c).unstack(c.input(tf.float32, [3, 2, 2])).stack()])

    op = "TensorArrayScatterV3"
    for t in g.types(op):
        def scatter(c, t=t):
            d = DTYPES[t]
            ta = _array(c, d, size=4, element_shape=[2]).scatter(
                c.feed(np.int32([3, 1]), name="i"), c.input(d, [2, 2], name="x"))
            return [ta.read(1), ta.read(3), ta.read(0)]
        g.add(op, "dtype_" + t, scatter, golden=(t == "float"))
    g.add(op, "length_mismatch",
          lambda c: [_array(c).scatter(c.feed(np.int32([0, 1]), name="i"),
                                       c.input(tf.float32, [3, 2])).read(0)], golden=True)
    g.add(op, "index_too_large",
          lambda c: [_array(c).scatter(c.feed(np.int32([0, 3]), name="i"),
                                       c.input(tf.float32, [2, 2])).read(0)])
    g.add(op, "dynamic_grows",
          lambda c: [_array(c, dynamic_size=True).scatter(
              c.feed(np.int32([0, 5]), name="i"), c.input(tf.float32, [2, 2])).size()])

    def scatter_scalar(c):
        ta = _array(c)
        return [raw.TensorArrayScatterV3(handle=ta.handle, indices=[0],
                                         value=c.feed(np.float32(1), name="x"),
                                         flow_in=ta.flow)]
    g.add(op, "scalar_value", scatter_scalar)

    op = "TensorArraySplitV3"
    for t in g.types(op):
        def split(c, t=t):
            d = DTYPES[t]
            ta = _array(c, d, size=3, infer_shape=False).split(
                c.input(d, [5, 2], name="x"), c.feed(np.int64([2, 0, 3]), name="n"))
            return [ta.read(0), ta.read(2), ta.read(1)]
        g.add(op, "dtype_" + t, split, golden=(t == "float"))
    g.add(op, "length_sum_mismatch",
          lambda c: [_array(c, size=2, infer_shape=False).split(
              c.input(tf.float32, [5]), c.feed(np.int64([2, 2]), name="n")).read(0)],
          golden=True)
    g.add(op, "size_mismatch",
          lambda c: [_array(c, size=3, infer_shape=False).split(
              c.input(tf.float32, [4]), c.feed(np.int64([2, 2]), name="n")).read(0)])

    op = "TensorArrayConcatV3"
    for t in g.types(op, "dtype"):
        def concat(c, t=t):
            d = DTYPES[t]
            ta = _array(c, d, size=2, infer_shape=False)
            ta = ta.write(0, c.input(d, [2, 3], name="a")).write(1, c.input(d, [1, 3], name="b"))
            v, n = raw.TensorArrayConcatV3(handle=ta.handle, flow_in=ta.flow, dtype=d)
            return [v, n]
        g.add(op, "dtype_" + t, concat, golden=(t == "float"))

    def concat_scalar(c):
        ta = _array(c, size=1).write(0, c.input(tf.float32, []))
        return [ta.concat()]
    g.add(op, "scalar_element", concat_scalar, golden=True)

    def concat_mismatch(c):
        ta = _array(c, size=2, infer_shape=False)
        ta = ta.write(0, c.input(tf.float32, [2, 3])).write(1, c.input(tf.float32, [1, 2]))
        return [ta.concat()]
    g.add(op, "inconsistent_shapes", concat_mismatch)
    g.add(op, "empty", lambda c: [raw.TensorArrayConcatV3(
        handle=_array(c, size=0).handle, flow_in=tf.constant(0.0), dtype=tf.float32,
        element_shape_except0=[3])[0]])

    op = "TensorArrayGradV3"

    def unstack_grad(c):
        x = c.input(tf.float32, [3, 2], name="x", static=True)
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        y = ta.read(0) * 2.0 + ta.read(2) * ta.read(1)
        return [y] + grads(c, [y], [x])
    g.add(op, "unstack_read", unstack_grad, golden=True,
          note="tf.gradients through unstack and reads: gradient array writes, gather")

    def split_grad(c):
        x = c.input(tf.float32, [5, 2], name="x", static=True)
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x, [2, 3])
        y = tf.reshape(ta.concat(), [5, 2]) * 3.0
        z = ta.read(1)
        return [y, z] + grads(c, [y], [x])
    g.add(op, "split_concat", split_grad,
          note="a split's gradient concatenates the gradient array (marked size)")

    def write_stack_grad(c):
        x = c.input(tf.float32, [2], name="x", static=True)
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, x).write(1, x * x).write(2, -x)
        y = ta.stack()
        return [y] + grads(c, [y], [x])
    g.add(op, "write_stack", write_stack_grad)

    op = "TensorArrayGradWithShape"

    def with_shape(c):
        ta = _array(c, size=2).write(0, c.input(tf.float32, [2]))
        h, f = raw.TensorArrayGradWithShape(handle=ta.handle, flow_in=ta.flow,
                                            shape_to_prepend=[3], source="g")
        a = raw.TensorArrayReadV3(handle=h, index=0, flow_in=f, dtype=tf.float32)
        return [a]
    g.add(op, "zeros_of_prepended_shape", with_shape, golden=True)


def stacks(g):
    def stack(c, d=tf.float32, max_size=-1, name="s"):
        return raw.StackV2(max_size=c.feed(np.int32(max_size), name="max_size"),
                           elem_type=d, stack_name=name)

    def chain(ops):
        """Each op runs after the previous one (make fed inputs before: a
        fed placeholder loses its control inputs)."""
        out = []
        for make in ops:
            with tf.control_dependencies(out[-1:]):
                out.append(make())
        return out

    op = "StackPushV2"
    for t in g.types(op):
        def push_pop(c, t=t):
            d = DTYPES[t]
            h = stack(c, d)
            a, b = c.input(d, [2], name="a"), c.input(d, [3], name="b")
            p1, p2, q1, q2 = chain([
                lambda: raw.StackPushV2(handle=h, elem=a),
                lambda: raw.StackPushV2(handle=h, elem=b),
                lambda: raw.StackPopV2(handle=h, elem_type=d),
                lambda: raw.StackPopV2(handle=h, elem_type=d)])
            return [p1, q1, q2]
        g.add(op, "dtype_" + t, push_pop, golden=(t == "float"))

    def overflow(c):
        h = stack(c, max_size=1)
        a, b = c.input(tf.float32, [2], name="a"), c.input(tf.float32, [2], name="b")
        _, p2 = chain([lambda: raw.StackPushV2(handle=h, elem=a),
                       lambda: raw.StackPushV2(handle=h, elem=b)])
        return [p2]
    g.add(op, "overflow", overflow, golden=True)

    def wrong_type(c):
        h = stack(c)
        return [raw.StackPushV2(handle=h, elem=c.input(tf.int32, [2]))]
    g.add(op, "wrong_dtype", wrong_type)

    def while_grad(c):
        x = c.input(tf.float32, [2], name="x", static=True)
        _, y = v1.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x + 1.0),
                             [tf.constant(0), tf.ones([2])])
        return [y] + grads(c, [y], [x])
    g.add(op, "while_loop_grad", while_grad, golden=True,
          note="tf.compat.v1.while_loop gradients save forward values on stacks")

    op = "StackPopV2"
    g.add(op, "empty", lambda c: [raw.StackPopV2(handle=stack(c), elem_type=tf.float32)],
          golden=True)

    def pop_wrong_type(c):
        h = stack(c)
        a = c.input(tf.float32, [2], name="a")
        p, q = chain([lambda: raw.StackPushV2(handle=h, elem=a),
                      lambda: raw.StackPopV2(handle=h, elem_type=tf.float32, name="pop")])
        return Spec(fetches=[q], edit=set_attr("pop", "elem_type", tf.int32))
    g.add(op, "wrong_dtype", pop_wrong_type)

    op = "StackV2"
    g.add(op, "size_not_scalar",
          lambda c: [raw.StackPushV2(
              handle=raw.StackV2(max_size=c.feed(np.int32([1]), name="n"),
                                 elem_type=tf.float32),
              elem=c.input(tf.float32, [2]))])
    g.add(op, "handle_per_step",
          lambda c: Spec(fetches=[raw.StackPushV2(handle=stack(c),
                                                  elem=c.input(tf.float32, [2]))], steps=2),
          golden=True, note="a new stack in every step")

    op = "StackCloseV2"

    def close(c, then_push):
        h = stack(c)
        a, b = c.input(tf.float32, [2], name="a"), c.input(tf.float32, [2], name="b")
        ops = [lambda: raw.StackPushV2(handle=h, elem=a),
               lambda: raw.StackCloseV2(handle=h)]
        if then_push:
            ops.append(lambda: raw.StackPushV2(handle=h, elem=b))
        out = chain(ops)
        return Spec(fetches=[out[0]] + ([out[2]] if then_push else []), targets=[out[1]])
    g.add(op, "close", lambda c: close(c, False), golden=True)
    g.add(op, "push_after_close", lambda c: close(c, True), golden=True)


def tensor_lists(g):
    """TensorList ops (DT_VARIANT lists), raw, as TensorFlow 2's lowered
    control flow and Keras RNNs use them."""
    def shape(c, dims, name="shape", dtype=np.int32):
        return c.feed(np.asarray(dims, dtype), name=name)

    def reserve(c, n=3, dims=(2,), d=tf.float32):
        dims = dims if isinstance(dims, int) else list(dims)
        return raw.TensorListReserve(element_shape=shape(c, dims),
                                     num_elements=c.feed(np.int32(n), name="n"),
                                     element_dtype=d)

    def stack(h, c, d=tf.float32, dims=-1, **kw):
        return raw.TensorListStack(input_handle=h, element_shape=shape(c, dims, "stack_shape"),
                                   element_dtype=d, **kw)

    def set_item(h, i, v):
        return raw.TensorListSetItem(input_handle=h, index=i, item=v)

    def get_item(h, c, i, d=tf.float32, dims=-1):
        return raw.TensorListGetItem(input_handle=h, index=i,
                                     element_shape=shape(c, dims, "get_shape"),
                                     element_dtype=d)

    op = "TensorListFromTensor"
    for t in g.types("TensorListStack", "element_dtype"):
        def from_tensor(c, t=t):
            d = DTYPES[t]
            h = raw.TensorListFromTensor(tensor=c.input(d, [3, 2], name="x"),
                                         element_shape=shape(c, [2]))
            return [stack(h, c, d), raw.TensorListLength(input_handle=h)]
        g.add(op, "dtype_" + t, from_tensor, golden=(t == "float"))
    g.add(op, "scalar_tensor",
          lambda c: [stack(raw.TensorListFromTensor(tensor=c.input(tf.float32, []),
                                                    element_shape=shape(c, -1)), c)])
    g.add(op, "shape_mismatch",
          lambda c: [stack(raw.TensorListFromTensor(tensor=c.input(tf.float32, [3, 2]),
                                                    element_shape=shape(c, [3])), c)],
          golden=True)
    g.add(op, "int64_shape",
          lambda c: [stack(raw.TensorListFromTensor(
              tensor=c.input(tf.float32, [2, 2]),
              element_shape=shape(c, [-1], dtype=np.int64)), c)])

    op = "TensorListReserve"
    g.add(op, "set_and_stack",
          lambda c: [stack(set_item(reserve(c), 1, c.input(tf.float32, [2])), c)],
          golden=True, note="unset elements stack as zeros")
    g.add(op, "negative_size", lambda c: [stack(reserve(c, n=-1), c)], golden=True)
    g.add(op, "bad_scalar_shape",
          lambda c: [raw.TensorListLength(input_handle=raw.TensorListReserve(
              element_shape=shape(c, 3), num_elements=2, element_dtype=tf.float32))])
    g.add(op, "unknown_shape_empty_stack",
          lambda c: [stack(reserve(c, dims=[-1]), c)])

    op = "TensorListStack"
    g.add(op, "num_elements_mismatch",
          lambda c: [stack(reserve(c), c, num_elements=2)], golden=True)
    g.add(op, "wrong_dtype",
          lambda c: Spec(fetches=[stack(reserve(c), c, name="st")],
                         edit=set_attr("st", "element_dtype", tf.int32)))
    g.add(op, "shape_from_elements",
          lambda c: [stack(set_item(reserve(c, dims=[-1]), 2, c.input(tf.float32, [4])), c)])
    g.add(op, "empty_known_shape", lambda c: [stack(reserve(c, n=0), c)])

    op = "TensorListGetItem"
    for t in g.types(op, "element_dtype"):
        def get(c, t=t):
            d = DTYPES[t]
            h = raw.TensorListFromTensor(tensor=c.input(d, [3, 2], name="x"),
                                         element_shape=shape(c, [2]))
            return [get_item(h, c, 2, d)]
        g.add(op, "dtype_" + t, get, golden=(t == "float"))
    g.add(op, "out_of_range",
          lambda c: [get_item(reserve(c), c, c.feed(np.int32(3), name="i"))], golden=True)
    g.add(op, "unset_zeros", lambda c: [get_item(reserve(c), c, 0)], golden=True)
    g.add(op, "unset_unknown_shape",
          lambda c: [get_item(reserve(c, dims=-1), c, 0)])
    g.add(op, "unset_shape_from_input",
          lambda c: [get_item(reserve(c, dims=-1), c, 0, dims=[3])])

    op = "TensorListSetItem"
    for t in g.types(op, "element_dtype"):
        def setit(c, t=t):
            d = DTYPES[t]
            h = raw.TensorListReserve(element_shape=shape(c, [2]), num_elements=2,
                                      element_dtype=d)
            h2 = set_item(h, 0, c.input(d, [2], name="x"))
            return [get_item(h2, c, 0, d)]
        g.add(op, "dtype_" + t, setit, golden=(t == "float"))
    g.add(op, "out_of_range",
          lambda c: [stack(set_item(reserve(c), 3, c.input(tf.float32, [2])), c)],
          golden=True)
    g.add(op, "resize",
          lambda c: [stack(raw.TensorListSetItem(
              input_handle=reserve(c), index=4, item=c.input(tf.float32, [2]),
              resize_if_index_out_of_bounds=True), c)])
    g.add(op, "shape_mismatch",
          lambda c: [stack(set_item(reserve(c), 0, c.input(tf.float32, [3])), c)])

    def keeps_input(c):
        h = reserve(c)
        h2 = set_item(h, 0, c.input(tf.float32, [2]))
        return [stack(h, c), stack(h2, c)]
    g.add(op, "input_unchanged", keeps_input, note="lists are values")

    op = "TensorListLength"
    g.add(op, "length", lambda c: [raw.TensorListLength(input_handle=reserve(c, n=5))],
          golden=True)

    op = "TensorListPushBack"
    for t in g.types(op, "element_dtype"):
        def push(c, t=t):
            d = DTYPES[t]
            h = raw.TensorListReserve(element_shape=shape(c, [2]), num_elements=0,
                                      element_dtype=d)
            h = raw.TensorListPushBack(input_handle=h, tensor=c.input(d, [2], name="a"))
            h = raw.TensorListPushBack(input_handle=h, tensor=c.input(d, [2], name="b"))
            return [stack(h, c, d), raw.TensorListLength(input_handle=h)]
        g.add(op, "dtype_" + t, push, golden=(t == "float"))
    g.add(op, "shape_mismatch",
          lambda c: [raw.TensorListLength(input_handle=raw.TensorListPushBack(
              input_handle=reserve(c), tensor=c.input(tf.float32, [3])))], golden=True)

    op = "TensorListPopBack"
    for t in g.types(op, "element_dtype"):
        def pop(c, t=t):
            d = DTYPES[t]
            h = raw.TensorListFromTensor(tensor=c.input(d, [3, 2], name="x"),
                                         element_shape=shape(c, [2]))
            h2, v = raw.TensorListPopBack(input_handle=h, element_shape=shape(c, -1, "p"),
                                          element_dtype=d)
            return [v, raw.TensorListLength(input_handle=h2)]
        g.add(op, "dtype_" + t, pop, golden=(t == "float"))

    def pop_empty(c):
        h = reserve(c, n=0)
        _, v = raw.TensorListPopBack(input_handle=h, element_shape=shape(c, -1, "p"),
                                     element_dtype=tf.float32)
        return [v]
    g.add(op, "empty", pop_empty, golden=True)

    def pop_unset(c):
        _, v = raw.TensorListPopBack(input_handle=reserve(c), element_shape=shape(c, -1, "p"),
                                     element_dtype=tf.float32)
        return [v]
    g.add(op, "unset_zeros", pop_unset)

    op = "TensorListElementShape"
    for dims, name in (([2, -1], "partial"), (-1, "unknown_rank"), ([], "scalar")):
        for st in (tf.int32, tf.int64):
            g.add(op, "%s_%s" % (name, st.name),
                  lambda c, dims=dims, st=st: [raw.TensorListElementShape(
                      input_handle=reserve(c, dims=dims), shape_type=st)],
                  golden=(name == "partial" and st == tf.int32))
