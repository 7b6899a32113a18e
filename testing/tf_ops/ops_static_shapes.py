"""Op cases whose inputs have static shapes or constant shape arguments, so
that TensorFlow's shape inference (and stepflow's, held to it by
testing/tf_shapes) works on known shapes: random ops given constant shapes,
string ops on static shapes, TensorLists and TensorArrays whose handle data
carries the element shape from op to op, and graphs edited after building
so that shape inference refuses them at import.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import Spec, raw, set_attr
import numpy as np
import tensorflow as tf


def _edited(spec, edit):
    spec = spec if isinstance(spec, Spec) else Spec(fetches=spec)
    spec.edit = edit
    return spec


def _seed(c, n=2):
    return c.feed(np.arange(1, n + 1, dtype=np.int64), name="seed", static=True)


def random_ops(g):
    g.add("StatelessRandomUniform", "const_shape",
          lambda c: [raw.StatelessRandomUniform(shape=c.const([2, 3]), seed=_seed(c))])
    g.add("StatelessRandomNormal", "partial_shape",
          lambda c: [raw.StatelessRandomNormal(
              shape=tf.stack([c.const(2), c.feed(np.int32(3), name="n")]), seed=_seed(c))])
    g.add("StatelessRandomUniform", "seed_of_three",
          lambda c: _edited([raw.StatelessRandomUniform(shape=c.const([2]), seed=_seed(c))],
                            set_attr("seed", "shape", tf.TensorShape([3]))))

    def v2(c):
        key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=_seed(c))
        return [key, counter, alg,
                raw.StatelessRandomUniformV2(shape=c.const([4, 2]), key=key,
                                             counter=counter, alg=alg)]
    g.add("StatelessRandomUniformV2", "const_shape", v2)
    g.add("Multinomial", "static_logits",
          lambda c: [raw.Multinomial(logits=c.input(tf.float32, [2, 3], static=True),
                                     num_samples=c.const(4), seed=1, seed2=2)])
    g.add("RandomGamma", "const_shape",
          lambda c: [raw.RandomGamma(shape=c.const([2]),
                                     alpha=c.input(tf.float32, [3], "pos", static=True),
                                     seed=1, seed2=2)])


def _strings(c, values, name=None):
    return c.feed(np.asarray(values, dtype=object), dtype=tf.string, name=name, static=True)


def string_ops(g):
    g.add("StringJoin", "static_scalar_and_vector",
          lambda c: [raw.StringJoin(inputs=[_strings(c, "x"), _strings(c, ["a", "b"])],
                                    separator="-")])
    g.add("Substr", "static_shapes",
          lambda c: [raw.Substr(input=_strings(c, ["hello", "world"]),
                                pos=c.feed(np.int32([0, 1]), name="pos", static=True),
                                len=c.feed(np.int32([2, 3]), name="len", static=True))])
    g.add("Substr", "static_pos_len_mismatch",
          lambda c: _edited([raw.Substr(input=_strings(c, ["hello", "world"]),
                                        pos=c.feed(np.int32([0, 1]), name="pos", static=True),
                                        len=c.feed(np.int32([2, 3]), name="len", static=True))],
                            set_attr("len", "shape", tf.TensorShape([3]))))
    g.add("StringSplit", "static_shapes",
          lambda c: list(raw.StringSplit(input=_strings(c, ["a b", "c"]),
                                         delimiter=_strings(c, " "))))
    g.add("UnicodeDecode", "static_matrix",
          lambda c: list(raw.UnicodeDecode(input=_strings(c, [["ab", "c"], ["", "d"]]),
                                           input_encoding="UTF-8")))
    g.add("UnicodeEncode", "static_shapes",
          lambda c: [raw.UnicodeEncode(
              input_values=c.feed(np.int32([72, 105, 33]), name="values", static=True),
              input_splits=c.feed(np.int64([0, 2, 3]), name="splits", static=True),
              output_encoding="UTF-8")])
    g.add("ReduceJoin", "static_const_axis",
          lambda c: [raw.ReduceJoin(inputs=_strings(c, [["a", "b", "c"], ["d", "e", "f"]]),
                                    reduction_indices=c.const(1))])
    g.add("RegexReplace", "static_shapes",
          lambda c: [raw.RegexReplace(input=_strings(c, [["ab", "cb"]]),
                                      pattern=_strings(c, "b"), rewrite=_strings(c, "x"))])


def _reserve(c, dims, n=3):
    return raw.TensorListReserve(element_shape=c.const(dims, tf.int32),
                                 num_elements=c.const(n), element_dtype=tf.float32)


def list_ops(g):
    def get_after_set(c):
        h = raw.TensorListSetItem(input_handle=_reserve(c, [2]), index=c.const(1),
                                  item=c.input(tf.float32, [2], static=True))
        return [raw.TensorListGetItem(input_handle=h, index=c.const(1),
                                      element_shape=c.const(-1), element_dtype=tf.float32),
                raw.TensorListStack(input_handle=h, element_shape=c.const(-1),
                                    element_dtype=tf.float32, num_elements=3),
                raw.TensorListElementShape(input_handle=h, shape_type=tf.int32)]
    g.add("TensorListGetItem", "handle_shape", get_after_set)

    def from_tensor(c):
        h = raw.TensorListFromTensor(tensor=c.input(tf.float32, [3, 2], static=True),
                                     element_shape=c.const([2]))
        h = raw.TensorListPushBack(input_handle=h, tensor=c.input(tf.float32, [2], static=True))
        h, item = raw.TensorListPopBack(input_handle=h, element_shape=c.const(-1),
                                        element_dtype=tf.float32)
        return [item, raw.TensorListLength(input_handle=h),
                raw.TensorListStack(input_handle=h, element_shape=c.const(-1),
                                    element_dtype=tf.float32)]
    g.add("TensorListPopBack", "handle_shape", from_tensor)

    def wrong_dtype(c):
        h = raw.TensorListSetItem(input_handle=_reserve(c, [2]), index=c.const(0),
                                  item=c.input(tf.float32, [2], static=True))
        return _edited([raw.TensorListGetItem(input_handle=h, index=c.const(0),
                                              element_shape=c.const(-1),
                                              element_dtype=tf.float32, name="get")],
                       set_attr("get", "element_dtype", tf.int32))
    g.add("TensorListGetItem", "wrong_dtype", wrong_dtype)

    def shape_mismatch(c):
        return _edited([raw.TensorListGetItem(input_handle=_reserve(c, [2]), index=c.const(0),
                                              element_shape=c.const([-1], tf.int32,
                                                                    name="element_shape"),
                                              element_dtype=tf.float32)],
                       set_attr("element_shape", "value", np.int32([3])))
    g.add("TensorListGetItem", "element_shape_mismatch", shape_mismatch)


def tensor_array_ops(g):
    def array(c, edit=None):
        handle, flow = raw.TensorArrayV3(size=c.const(3), dtype=tf.float32,
                                         element_shape=tf.TensorShape([2]))
        flow = raw.TensorArrayWriteV3(handle=handle, index=c.const(0),
                                      value=c.input(tf.float32, [2], static=True, name="value"),
                                      flow_in=flow)
        flow = raw.TensorArrayWriteV3(handle=handle, index=c.const(1),
                                      value=c.input(tf.float32, [2], static=True),
                                      flow_in=flow)
        out = [raw.TensorArrayReadV3(handle=handle, index=c.const(1), flow_in=flow,
                                     dtype=tf.float32),
               raw.TensorArrayGatherV3(handle=handle, indices=c.const([0, 1]), flow_in=flow,
                                       dtype=tf.float32)]
        return out if edit is None else _edited(out, edit)
    g.add("TensorArrayReadV3", "element_shape", array)
    g.add("TensorArrayWriteV3", "static_value_mismatch",
          lambda c: array(c, set_attr("value", "shape", tf.TensorShape([3]))))
