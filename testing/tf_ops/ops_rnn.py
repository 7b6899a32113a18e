"""Op cases for the fused recurrent cells: LSTMBlockCell (forget_bias,
cell_clip, use_peephole) and GRUBlockCell with their values compared
directly, and their gradient ops LSTMBlockCellGrad and GRUBlockCellGrad run
as raw ops on the forward's outputs and fed output gradients; inputs of
inconsistent sizes.

Each function adds one family's cases to a Generator (op_case_lib).
"""

from op_case_lib import DTYPES, raw

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
