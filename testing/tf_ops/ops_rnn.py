"""Op cases for the fused recurrent cells: LSTMBlockCell (forget_bias,
cell_clip, use_peephole), GRUBlockCell and the sequence LSTMs BlockLSTM and
BlockLSTMV2 (seq_len_max shorter than the sequence) with their values
compared directly, and their gradient ops (LSTMBlockCellGrad,
GRUBlockCellGrad, BlockLSTMGrad, BlockLSTMGradV2) run as raw ops on the
forward's outputs and fed output gradients; inputs of inconsistent sizes.

Each function adds one family's cases to a Generator (op_case_lib).
"""

from op_case_lib import DTYPES, grads, raw
import numpy as np
import tensorflow as tf

BATCH, INPUT, CELL = 3, 4, 5


def _lstm_inputs(c, t, batch=BATCH, inp=INPUT, cell=CELL, w_rows=None, b_len=None,
                 cs_batch=None):
    d = DTYPES[t]
    return dict(
        x=c.input(d, [batch, inp], "unit", name="x"),
        cs_prev=c.input(d, [cs_batch or batch, cell], name="cs_prev"),
        h_prev=c.input(d, [batch, cell], "unit", name="h_prev"),
        w=c.input(d, [w_rows or inp + cell, 4 * cell], "unit", name="w"),
        wci=c.input(d, [cell], "unit", name="wci"),
        wcf=c.input(d, [cell], "unit", name="wcf"),
        wco=c.input(d, [cell], "unit", name="wco"),
        b=c.input(d, [b_len or 4 * cell], "unit", name="b"))


def lstm_block_cell(g):
    op = "LSTMBlockCell"

    def cell(c, t="float", peephole=False, **kw):
        attrs = {k: kw.pop(k) for k in ("forget_bias", "cell_clip") if k in kw}
        return list(raw.LSTMBlockCell(use_peephole=peephole, **attrs,
                                      **_lstm_inputs(c, t, **kw)))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: cell(c, t), golden=(t == "float"))
        g.add(op, "peephole_" + t, lambda c, t=t: cell(c, t, True))
    g.add(op, "no_clip", lambda c: cell(c, cell_clip=-1.0, peephole=True))
    g.add(op, "tight_clip", lambda c: cell(c, cell_clip=0.25), golden=True)
    g.add(op, "forget_bias", lambda c: cell(c, forget_bias=0.0, peephole=True))
    g.add(op, "batch_one", lambda c: cell(c, batch=1, inp=1, cell=1))
    g.add(op, "empty_batch", lambda c: cell(c, batch=0))
    g.add(op, "empty_cell", lambda c: cell(c, cell=0))
    g.add(op, "empty_input", lambda c: cell(c, inp=0))
    g.add(op, "w_rows_mismatch", lambda c: cell(c, w_rows=INPUT + CELL + 1), golden=True)
    g.add(op, "b_size_mismatch", lambda c: cell(c, b_len=4 * CELL - 1))
    g.add(op, "cs_batch_mismatch", lambda c: cell(c, cs_batch=BATCH + 1))

    op = "LSTMBlockCellGrad"

    def grad(c, t="float", peephole=False, clip=3.0, batch=BATCH):
        ins = _lstm_inputs(c, t, batch=batch)
        fwd = raw.LSTMBlockCell(use_peephole=peephole, cell_clip=clip, **ins)
        d = DTYPES[t]
        return list(raw.LSTMBlockCellGrad(
            use_peephole=peephole, i=fwd.i, cs=fwd.cs, f=fwd.f, o=fwd.o, ci=fwd.ci,
            co=fwd.co, cs_grad=c.input(d, [batch, CELL], name="cs_grad"),
            h_grad=c.input(d, [batch, CELL], name="h_grad"), **ins))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: grad(c, t), golden=(t == "float"))
        g.add(op, "peephole_" + t, lambda c, t=t: grad(c, t, True))
    g.add(op, "peephole_no_clip", lambda c: grad(c, peephole=True, clip=0.0),
          golden=True)
    g.add(op, "batch_one", lambda c: grad(c, batch=1))


def gru_block_cell(g):
    op = "GRUBlockCell"

    def inputs(c, batch=BATCH, inp=INPUT, cell=CELL, wc_cols=None, bru_len=None):
        d = DTYPES["float"]
        return dict(
            x=c.input(d, [batch, inp], "unit", name="x"),
            h_prev=c.input(d, [batch, cell], "unit", name="h_prev"),
            w_ru=c.input(d, [inp + cell, 2 * cell], "unit", name="w_ru"),
            w_c=c.input(d, [inp + cell, wc_cols or cell], "unit", name="w_c"),
            b_ru=c.input(d, [bru_len or 2 * cell], "unit", name="b_ru"),
            b_c=c.input(d, [cell], "unit", name="b_c"))

    def cell(c, **kw):
        return list(raw.GRUBlockCell(**inputs(c, **kw)))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c: cell(c), golden=(t == "float"))
    g.add(op, "batch_one", lambda c: cell(c, batch=1, inp=2, cell=1))
    g.add(op, "empty_batch", lambda c: cell(c, batch=0))
    g.add(op, "w_c_cols_mismatch", lambda c: cell(c, wc_cols=CELL + 1), golden=True)
    g.add(op, "b_ru_size_mismatch", lambda c: cell(c, bru_len=2 * CELL + 2))

    op = "GRUBlockCellGrad"

    def grad(c, **kw):
        ins = inputs(c, **kw)
        fwd = raw.GRUBlockCell(**ins)
        batch = kw.get("batch", BATCH)
        cells = kw.get("cell", CELL)
        return list(raw.GRUBlockCellGrad(
            r=fwd.r, u=fwd.u, c=fwd.c,
            d_h=c.input(DTYPES["float"], [batch, cells], name="d_h"), **ins))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c: grad(c), golden=(t == "float"))
    g.add(op, "batch_one", lambda c: grad(c, batch=1, inp=2, cell=1))
    g.add(op, "wide_input", lambda c: grad(c, inp=9))


def block_lstm(g):
    time = 4

    def inputs(c, t, seq, batch=BATCH, wrows=None):
        d = DTYPES[t]
        ins = _lstm_inputs(c, t, batch=batch, w_rows=wrows)
        ins["x"] = c.input(d, [time, batch, INPUT], "unit", name="x")
        ins["seq_len_max"] = c.feed(np.array(seq, np.int64), name="seq_len_max")
        return ins

    for v2 in (False, True):
        op = "BlockLSTMV2" if v2 else "BlockLSTM"
        f = getattr(raw, op)

        def fwd(c, t="float", seq=time, peephole=False, f=f, **kw):
            # TensorFlow leaves the steps from seq_len_max on uninitialized
            # (not zero, as its documentation says): only the steps run and
            # the shapes are compared.
            attrs = {k: kw.pop(k) for k in ("forget_bias", "cell_clip") if k in kw}
            outs = list(f(use_peephole=peephole, **attrs, **inputs(c, t, seq, **kw)))
            if seq == time:
                return outs
            return [o[:seq] for o in outs] + [tf.shape(o) for o in outs]

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, fwd=fwd: fwd(c, t), golden=(t == "float"))
            g.add(op, "peephole_" + t, lambda c, t=t, fwd=fwd: fwd(c, t, peephole=True))
        g.add(op, "short_sequence", lambda c, fwd=fwd: fwd(c, seq=2, peephole=True),
              golden=True)
        g.add(op, "no_steps", lambda c, fwd=fwd: fwd(c, seq=0))
        g.add(op, "clip", lambda c, fwd=fwd: fwd(c, cell_clip=0.25))
        g.add(op, "empty_batch", lambda c, fwd=fwd: fwd(c, batch=0))
        g.add(op, "w_rows_mismatch", lambda c, fwd=fwd: fwd(c, wrows=INPUT + CELL + 2))
        if not v2:
            g.add(op, "forget_bias", lambda c, fwd=fwd: fwd(c, forget_bias=0.5))

        def through(c, peephole, f=f):
            """tf.gradients of h and cs with respect to every input."""
            d = DTYPES["float"]
            shapes = dict(x=[time, BATCH, INPUT], cs_prev=[BATCH, CELL],
                          h_prev=[BATCH, CELL], w=[INPUT + CELL, 4 * CELL], wci=[CELL],
                          wcf=[CELL], wco=[CELL], b=[4 * CELL])
            ins = {k: c.input(d, v, "unit", name=k, static=True) for k, v in shapes.items()}
            out = f(seq_len_max=tf.constant(time, tf.int64), use_peephole=peephole, **ins)
            return grads(c, [out.h, out.cs], list(ins.values()))

        g.add(op, "grad_float", lambda c, through=through: through(c, False),
              note="tf.gradients builds the gradient op")
        g.add(op, "grad_peephole", lambda c, through=through: through(c, True))

        op = op.replace("LSTM", "LSTMGrad")
        fg = getattr(raw, op)

        def grad(c, t="float", seq=time, peephole=False, f=f, fg=fg):
            d = DTYPES[t]
            ins = inputs(c, t, seq)
            out = f(use_peephole=peephole, **ins)
            return list(fg(use_peephole=peephole, i=out.i, cs=out.cs, f=out.f, o=out.o,
                           ci=out.ci, co=out.co, h=out.h,
                           cs_grad=c.input(d, [time, BATCH, CELL], name="cs_grad"),
                           h_grad=c.input(d, [time, BATCH, CELL], name="h_grad"), **ins))

        for t in g.types(op):
            g.add(op, "dtype_" + t, lambda c, t=t, grad=grad: grad(c, t),
                  golden=(t == "float"))
            g.add(op, "peephole_" + t, lambda c, t=t, grad=grad: grad(c, t, peephole=True))
        g.add(op, "short_sequence", lambda c, grad=grad: grad(c, seq=2, peephole=True),
              golden=True)
        g.add(op, "no_steps", lambda c, grad=grad: grad(c, seq=0))
