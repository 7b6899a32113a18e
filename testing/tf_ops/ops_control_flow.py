"""Op cases for control flow: NoOp and ControlTrigger, Switch/Merge and
the loop primitives (built with tf.compat.v1.cond/while_loop, control
flow v1, or by hand for the Ref forms), and the internal plumbing ops
(_Send/_Recv, _HostSend/_HostRecv, _Arg/_Retval).

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import CPU0, DTYPES, Spec, add_node, grads, raw, v1
import numpy as np
import tensorflow as tf
from ops_state import ref_var


def no_op_and_trigger(g):
    op = "NoOp"

    g.add(op, "target", lambda c: Spec(targets=[tf.no_op(name="nop")]), golden=True)

    def noop_then_read(c):
        v = raw.VariableV2(shape=[], dtype=tf.float32, name="v")
        init = raw.Assign(ref=v, value=tf.constant(1.0))
        with tf.control_dependencies([raw.AssignAdd(ref=v, value=tf.constant(2.0))]):
            n = tf.no_op(name="step")
        with tf.control_dependencies([n]):
            r = tf.identity(v)
        return Spec(fetches=[r], init=[init.op], steps=2)
    g.add(op, "control_dependency", noop_then_read)

    op = "ControlTrigger"

    def trigger(c):
        x = c.input(tf.float32, [2], name="x")
        t = raw.ControlTrigger(name="trigger")
        with tf.control_dependencies([t]):
            y = tf.identity(x)
        return [y]
    g.add(op, "control_input", trigger, golden=True)
    g.add(op, "target", lambda c: Spec(targets=[raw.ControlTrigger()]))


def control_flow(g):
    op = "Switch"

    def switch(c, pred, fetch_true=True, t=tf.float32):
        x = c.input(t, [2, 3], name="x")
        p = c.feed(np.array(pred), name="pred")
        f, tr = raw.Switch(data=x, pred=p)
        return [tr if fetch_true else f]
    g.add(op, "taken_branch", lambda c: switch(c, True, True), golden=True)
    g.add(op, "dead_branch", lambda c: switch(c, True, False), golden=True,
          note="fetching the output Switch did not take")
    g.add(op, "false_branch", lambda c: switch(c, False, False))
    for t in ("int32", "string", "bool"):
        g.add(op, "dtype_" + t, lambda c, t=t: switch(c, False, False, DTYPES[t]))
    g.add(op, "pred_not_scalar",
          lambda c: list(raw.Switch(data=c.input(tf.float32, [2]),
                                    pred=c.feed(np.array([True, False]), name="pred"))))

    def cond(c, pred, t=tf.float32):
        x = c.input(t, [2, 3], name="x")
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: x * tf.constant(2, t), lambda: x + tf.constant(1, t))
        return [r, r.op.outputs[1]]

    op = "Merge"
    for pred in (True, False):
        g.add(op, "cond_%s" % str(pred).lower(), lambda c, pred=pred: cond(c, pred),
              golden=True, note="tf.compat.v1.cond: Switch, branches, Merge")
    g.add(op, "cond_int32", lambda c: cond(c, True, tf.int32))

    def merge_one(c):
        m = raw.Merge(inputs=[c.input(tf.float32, [2], name="x")])
        return list(m)
    g.add(op, "single_input", merge_one)

    def cond_grad(c, pred):
        x = c.input(tf.float32, [2, 3], name="x", static=True)
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: tf.tanh(x), lambda: x * x)
        return grads(c, [r], [x])
    g.add(op, "cond_grad", lambda c: cond_grad(c, False), golden=True)
    g.add("Switch", "cond_grad", lambda c: cond_grad(c, True))

    def nested_cond(c, a, b):
        x = c.input(tf.float32, [3], name="x")
        pa = c.feed(np.array(a), name="pa")
        pb = c.feed(np.array(b), name="pb")
        r = v1.cond(pa, lambda: v1.cond(pb, lambda: x + 1, lambda: x - 1), lambda: x * 3)
        return [r]
    g.add(op, "nested_cond", lambda c: nested_cond(c, True, False))

    def loop(c, n, parallel=10):
        x = c.input(tf.float32, [2], name="x")
        limit = c.feed(np.array(n, np.int32), name="n")
        i, y = v1.while_loop(lambda i, y: i < limit,
                             lambda i, y: (i + 1, y * 1.5 + tf.cast(i, tf.float32)),
                             [tf.constant(0), x], parallel_iterations=parallel)
        return [i, y]
    for op in ("Enter", "Exit", "NextIteration", "LoopCond"):
        g.add(op, "while_5", lambda c: loop(c, 5), golden=True,
              note="tf.compat.v1.while_loop: Enter, Merge, LoopCond, Switch, NextIteration, Exit")
        g.add(op, "while_0", lambda c: loop(c, 0))
    g.add("Enter", "parallel_iterations_1", lambda c: loop(c, 4, parallel=1))

    def nested_loop(c):
        n = c.feed(np.array(3, np.int32), name="n")

        def outer(i, acc):
            _, inner = v1.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j),
                                     [tf.constant(0), acc])
            return i + 1, inner
        return list(v1.while_loop(lambda i, acc: i < n, outer, [tf.constant(0), tf.constant(0)]))
    g.add("NextIteration", "nested", nested_loop, golden=True)

    def loop_with_cond(c):
        n = c.feed(np.array(6, np.int32), name="n")
        return list(v1.while_loop(
            lambda i, s: i < n,
            lambda i, s: (i + 1, v1.cond(tf.equal(i % 2, 0), lambda: s + i, lambda: s - 1)),
            [tf.constant(0), tf.constant(0)]))
    g.add("LoopCond", "with_cond", loop_with_cond)

    def loop_invariant(c):
        x = c.input(tf.float32, [3], name="x")
        w = c.input(tf.float32, [3], name="w")
        return [v1.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w),
                              [tf.constant(0), x])[1]]
    g.add("Enter", "loop_invariant", loop_invariant,
          note="a tensor from outside the loop enters as a constant")

    def loop_cond_not_scalar(c):
        p = c.feed(np.array([True]), name="p")
        return [raw.LoopCond(input=p)]
    g.add("LoopCond", "outside_loop", loop_cond_not_scalar)

    # Ref forms: a ref variable used inside a cond and a while loop.
    def ref_cond(c, pred):
        v, i = ref_var(c, np.array([1.0, 2.0], np.float32))
        p = c.feed(np.array(pred), name="pred")
        r = v1.cond(p, lambda: v1.assign_add(v, [10.0, 10.0]), lambda: tf.identity(v))
        return Spec(fetches=[r], init=[i.op])
    g.add("RefSwitch", "cond_assign_true", lambda c: ref_cond(c, True), golden=True,
          note="a ref variable captured by tf.compat.v1.cond enters through RefSwitch")
    g.add("RefSwitch", "cond_assign_false", lambda c: ref_cond(c, False))

    def ref_switch_raw(c, pred):
        v, i = ref_var(c, np.array([1.0, 2.0], np.float32))
        p = c.feed(np.array(pred), name="pred")
        f, t = raw.RefSwitch(data=v, pred=p)
        m = raw.RefMerge(inputs=[f, t])
        return Spec(fetches=[tf.identity(m.output), m.value_index], init=[i.op])
    g.add("RefMerge", "switch_merge_true", lambda c: ref_switch_raw(c, True), golden=True)
    g.add("RefMerge", "switch_merge_false", lambda c: ref_switch_raw(c, False))
    g.add("RefSwitch", "raw_merge", lambda c: ref_switch_raw(c, False))

    def ref_loop(c):
        v, i = ref_var(c, np.array([0.0, 1.0], np.float32))
        n = c.feed(np.array(4, np.int32), name="n")

        def body(k, s):
            with tf.control_dependencies([v1.assign_add(v, [1.0, 2.0])]):
                return k + 1, s + 1
        out = v1.while_loop(lambda k, s: k < n, body, [tf.constant(0), tf.constant(0)])
        with tf.control_dependencies(out):
            r = tf.identity(v)
        return Spec(fetches=[r] + list(out), init=[i.op])
    g.add("RefEnter", "loop_assign", ref_loop, golden=True,
          note="a ref variable assigned in a while loop enters through RefEnter")

    def ref_frame(c, n):
        """A hand-built loop whose loop variable is a ref: RefEnter,
        RefMerge, RefSwitch, RefNextIteration, RefExit."""
        v, i = ref_var(c, np.array([3.0, 4.0], np.float32))
        c.feed(np.array(n, np.int32), name="n")

        def edit(gd):
            fr = dict(frame_name="ref_frame", is_constant=False, parallel_iterations=1)
            add_node(gd, "r_enter", "RefEnter", ["v"], T=tf.float32, **fr)
            add_node(gd, "c_init", "Const", dtype=tf.int32, value=np.array(0, np.int32))
            add_node(gd, "c_enter", "Enter", ["c_init"], T=tf.int32, **fr)
            add_node(gd, "n_enter", "Enter", ["n"], T=tf.int32, frame_name="ref_frame",
                     is_constant=True, parallel_iterations=1)
            add_node(gd, "r_merge", "RefMerge", ["r_enter", "r_next"], T=tf.float32, N=2)
            add_node(gd, "c_merge", "Merge", ["c_enter", "c_next"], T=tf.int32, N=2)
            add_node(gd, "less", "Less", ["c_merge", "n_enter"], T=tf.int32)
            add_node(gd, "cond", "LoopCond", ["less"])
            add_node(gd, "r_switch", "RefSwitch", ["r_merge", "cond"], T=tf.float32)
            add_node(gd, "c_switch", "Switch", ["c_merge", "cond"], T=tf.int32)
            add_node(gd, "one", "Const", ["^c_switch:1"], dtype=tf.int32,
                     value=np.array(1, np.int32))
            add_node(gd, "c_add", "Add", ["c_switch:1", "one"], T=tf.int32)
            add_node(gd, "r_next", "RefNextIteration", ["r_switch:1"], T=tf.float32)
            add_node(gd, "c_next", "NextIteration", ["c_add"], T=tf.int32)
            add_node(gd, "r_exit", "RefExit", ["r_switch"], T=tf.float32)
            add_node(gd, "c_exit", "Exit", ["c_switch"], T=tf.int32)
            add_node(gd, "r_out", "Identity", ["r_exit"], T=tf.float32)
        return Spec(init=[i.op], edit=edit, extra_fetch_names=["r_out:0", "c_exit:0"])
    for op in ("RefEnter", "RefMerge", "RefNextIteration", "RefExit"):
        g.add(op, "ref_loop_3", lambda c: ref_frame(c, 3), golden=True,
              note="a hand-built loop over a ref")
        g.add(op, "ref_loop_0", lambda c: ref_frame(c, 0))


def internal(g):
    pairs = (("_Send", "_Recv"), ("_HostSend", "_HostRecv"))
    for send, recv in pairs:
        def sendrecv(c, t, client_terminated, send=send, recv=recv):
            c.input(DTYPES[t], [2, 3], name="x")

            def edit(gd):
                common = dict(tensor_name="edge_x", send_device=CPU0,
                              send_device_incarnation=1, recv_device=CPU0,
                              client_terminated=client_terminated)
                add_node(gd, "send", send, ["x"], T=DTYPES[t], **common)
                add_node(gd, "recv", recv, ["^send"], tensor_type=DTYPES[t], **common)
            return Spec(edit=edit, extra_fetch_names=["recv:0"])
        for op in (send, recv):
            for t in ("float", "int32", "string"):
                g.add(op, "pair_" + t, lambda c, t=t, s=sendrecv: s(c, t, False),
                      golden=(t == "float"), note="a matched pair in one graph")
            g.add(op, "client_terminated", lambda c, s=sendrecv: s(c, "float", True))

    def arg(c, index, t=tf.float32):
        c.input(tf.float32, [2], name="x")

        def edit(gd):
            add_node(gd, "arg", "_Arg", T=t, index=index)
        return Spec(edit=edit, extra_fetch_names=["arg:0"])
    g.add("_Arg", "index0", lambda c: arg(c, 0), golden=True)
    g.add("_Arg", "index_out_of_range", lambda c: arg(c, 5))
    g.add("_Arg", "dtype_mismatch", lambda c: arg(c, 0, tf.int32))

    def retval(c, index):
        y = tf.identity(c.input(tf.float32, [2], name="x"), name="y")

        def edit(gd):
            add_node(gd, "ret", "_Retval", ["y"], T=tf.float32, index=index)
        return Spec(fetches=[y], edit=edit)
    g.add("_Retval", "index0", lambda c: retval(c, 0), golden=True)
    g.add("_Retval", "index_out_of_range", lambda c: retval(c, 5))
