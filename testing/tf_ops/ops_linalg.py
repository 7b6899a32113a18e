"""Op cases for Einsum and the batched linear-algebra ops.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw
import numpy as np
import tensorflow as tf

# name: (equation, input shapes)
EINSUM = {
    "matmul": ("ij,jk->ik", [[2, 3], [3, 4]]),
    "batch_matmul": ("bij,bjk->bik", [[2, 2, 3], [2, 3, 4]]),
    "transpose": ("ij->ji", [[2, 3]]),
    "trace": ("ii->", [[3, 3]]),
    "diagonal": ("ii->i", [[3, 3]]),
    "batch_diagonal": ("bii->bi", [[2, 3, 3]]),
    "sum_all": ("ijk->", [[2, 3, 4]]),
    "sum_axis": ("ijk->ik", [[2, 3, 4]]),
    "outer": ("i,j->ij", [[3], [4]]),
    "dot": ("i,i->", [[5], [5]]),
    "hadamard": ("ij,ij->ij", [[2, 3], [2, 3]]),
    "attention_scores": ("bhqd,bhkd->bhqk", [[2, 2, 3, 4], [2, 2, 5, 4]]),
    "attention_mixed": ("bqhd,bkhd->bhqk", [[2, 3, 2, 4], [2, 5, 2, 4]]),
    "attention_values": ("bhqk,bkhd->bqhd", [[2, 2, 3, 5], [2, 5, 2, 4]]),
    "projection": ("abc,cd->abd", [[2, 3, 4], [4, 5]]),
    "dense_heads": ("abc,cde->abde", [[2, 3, 4], [4, 2, 3]]),
    "summed_free": ("ij,jk->k", [[2, 3], [3, 4]]),
    "both_summed": ("ij,kl->", [[2, 3], [4, 5]]),
    "repeated_in_two": ("iij,jk->ik", [[3, 3, 2], [2, 4]]),
    "ellipsis_matmul": ("...ij,...jk->...ik", [[2, 1, 2, 3], [3, 3, 4]]),
    "ellipsis_one_side": ("...ij,jk->...ik", [[2, 4, 2, 3], [3, 5]]),
    "ellipsis_broadcast_dot": ("...i,...i->...", [[2, 1, 3], [4, 3]]),
    "ellipsis_dropped": ("...ij->ij", [[2, 3, 4, 5]]),
    "ellipsis_middle": ("i...j,j...k->...ik", [[2, 3, 4], [4, 3, 5]]),
    "ellipsis_empty": ("...ij,...jk->...ik", [[2, 3], [3, 4]]),
    "uppercase": ("aB,Bc->ac", [[2, 3], [3, 4]]),
    "spaces": ("ij, jk -> ik", [[2, 3], [3, 4]]),
    "empty_inner": ("ij,jk->ik", [[2, 0], [0, 3]]),
    "empty_outer": ("ij,jk->ik", [[0, 3], [3, 4]]),
    "scalar_out_scalar_in": ("->", [[]]),
    "scalars": (",->", [[], []]),
    "scalar_times": (",ij->ij", [[], [2, 3]]),
    # Errors.
    "rank_mismatch": ("ij,jk->ik", [[2, 3, 1], [3, 4]]),
    "dim_mismatch": ("ij,jk->ik", [[2, 3], [4, 4]]),
    "diag_mismatch": ("ii->i", [[2, 3]]),
    "repeated_output": ("ij,jk->ii", [[2, 3], [3, 2]]),
    "repeated_output_batch": ("bi->bii", [[2, 3]]),
    "ellipsis_no_broadcast": ("...i,...i->...", [[2, 3], [4, 3]]),
    "digit_labels": ("i1,1k->ik", [[2, 3], [3, 4]]),
    "space_labels": (" ij,j k-> ik", [[1, 2, 3], [3, 1, 4]]),
    "spaces_rank_mismatch": ("ij, jk -> ik", [[2, 3], [3, 4]]),
}
# Gradients of "trace", "sum_axis" and "summed_free" need BroadcastTo.
EINSUM_GRADS = ("matmul", "batch_matmul", "attention_mixed", "dense_heads",
                "ellipsis_matmul", "ellipsis_broadcast_dot", "ellipsis_one_side")
EINSUM_GOLDEN = ("matmul", "ellipsis_matmul", "dim_mismatch",
                 "attention_mixed")


def einsum(g):
    op = "Einsum"

    def es(c, eq, shapes, t="float", static=False):
        xs = [c.input(DTYPES[t], s, name="x%d" % i, static=static)
              for i, s in enumerate(shapes)]
        return xs, raw.Einsum(inputs=xs, equation=eq)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: es(c, "ij,jk->ik", [[2, 3], [3, 4]], t)[1],
              golden=(t == "int32"))
    for name, (eq, shapes) in EINSUM.items():
        g.add(op, name, lambda c, eq=eq, shapes=shapes: es(c, eq, shapes)[1],
              golden=name in EINSUM_GOLDEN)
    for name in EINSUM_GRADS:
        eq, shapes = EINSUM[name]
        g.add(op, "grad_" + name,
              lambda c, eq=eq, shapes=shapes: (lambda xs, y: grads(c, [y], xs))(
                  *es(c, eq, shapes, static=True)),
              golden=(name == "attention_mixed"))
    g.add(op, "grad_double",
          lambda c: (lambda xs, y: grads(c, [y], xs))(
              *es(c, "bij,bjk->bik", [[2, 2, 3], [2, 3, 4]], "double", static=True)))




def _matrices(c, shape, kind="general"):
    """Fixed-seed float64 matrices of `shape` (batch..., m, n): "general"
    (well conditioned when square: diagonally dominant), "spd"
    (Hermitian positive definite), "singular" (a repeated row), "none"
    (uniform in [-1, 1])."""
    m = c.rng.uniform(-1, 1, size=shape)
    m = np.round(m * 64) / 64
    if kind == "general" and shape[-1] == shape[-2]:
        m = m + 3 * np.eye(shape[-1])
    elif kind == "spd":
        m = m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif kind == "singular":
        m[..., -1, :] = m[..., 0, :]
    return m


def _complexify(c, m, dtype):
    if dtype.is_complex:
        im = np.round(c.rng.uniform(-1, 1, size=m.shape) * 64) / 64
        if m.shape[-1] == m.shape[-2]:
            im = im - np.swapaxes(im, -1, -2)  # keeps "spd" Hermitian
        return m + 0.5j * im
    return m


def _mat(c, t, shape, kind="general", name="input", static=False):
    dt = DTYPES[t]
    return c.feed(_complexify(c, _matrices(c, shape, kind), dt), dtype=dt, name=name,
                  static=static)


# Square ops of one input: the kind of matrix each wants.
SQUARE = {"MatrixInverse": "general", "Cholesky": "spd",
          "MatrixDeterminant": "general", "LogMatrixDeterminant": "general"}


def square_op(g, op):
    f = getattr(raw, op)
    kind = SQUARE[op]

    def run(c, t, shape, k=kind, static=False, **attrs):
        x = _mat(c, t, shape, k, static=static)
        y = f(input=x, **attrs)
        return x, (list(y) if isinstance(y, (list, tuple)) else [y])

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: run(c, t, [2, 3, 3])[1],
              golden=(t == "float"))
    g.add(op, "single", lambda c: run(c, "double", [4, 4])[1])
    g.add(op, "larger", lambda c: run(c, "double", [2, 17, 17])[1],
          note="past Eigen's small-matrix paths")
    g.add(op, "batch_rank4", lambda c: run(c, "float", [2, 1, 3, 3])[1])
    g.add(op, "empty_batch", lambda c: run(c, "float", [0, 3, 3])[1])
    g.add(op, "empty_matrix", lambda c: run(c, "float", [2, 0, 0])[1])
    g.add(op, "not_square", lambda c: run(c, "float", [2, 3, 4], "none")[1],
          golden=True)
    g.add(op, "rank1", lambda c: f(input=c.feed(np.ones([3], np.float32), name="input")))
    if op != "Cholesky":
        g.add(op, "singular", lambda c: run(c, "double", [2, 3, 3], "singular")[1],
              note="exactly singular after rounding: an error, or sign 0")
        g.add(op, "zeros", lambda c: f(input=c.feed(np.zeros([2, 2], np.float32),
                                                    name="input")))
    if op == "MatrixInverse":
        g.add(op, "adjoint", lambda c: run(c, "complex64", [2, 3, 3], adjoint=True)[1])
        g.add(op, "adjoint_real", lambda c: run(c, "float", [3, 3], adjoint=True)[1])
    if op in ("MatrixDeterminant", "LogMatrixDeterminant"):
        g.add(op, "negative_det",
              lambda c: f(input=c.feed(np.array([[0, 1], [1, 0]], np.float32),
                                       name="input")))
        g.add(op, "overflow",
              lambda c: f(input=c.feed(np.eye(40) * 1e10, dtype=tf.float32,
                                       name="input")))
    if op == "Cholesky":
        g.add(op, "upper_ignored",
              lambda c: f(input=c.feed(np.array([[4, 100], [2, 5]], np.float32),
                                       name="input")),
              note="only the lower triangle is read")
    # Cholesky's gradient needs MatrixDiagV3/MatrixDiagPartV3/MatrixSetDiagV3.
    if op != "Cholesky":
        for t in ("float", "double"):
            g.add(op, "grad_" + t,
                  lambda c, t=t: (lambda x, ys: grads(c, ys[-1:], [x]))(
                      *run(c, t, [2, 3, 3], static=True)),
                  golden=(t == "float" and op == "MatrixInverse"))


def matrix_solve(g):
    op = "MatrixSolve"
    f = raw.MatrixSolve

    def run(c, t, ms, rs, kind="general", static=False, adjoint=False):
        a = _mat(c, t, ms, kind, name="matrix", static=static)
        b = _mat(c, t, rs, "none", name="rhs", static=static)
        return a, b, f(matrix=a, rhs=b, adjoint=adjoint)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: run(c, t, [2, 3, 3], [2, 3, 2])[2],
              golden=(t == "float"))
    g.add(op, "adjoint", lambda c: run(c, "complex128", [2, 3, 3], [2, 3, 2],
                                       adjoint=True)[2])
    g.add(op, "larger", lambda c: run(c, "double", [20, 20], [20, 3])[2])
    g.add(op, "singular", lambda c: run(c, "double", [2, 3, 3], [2, 3, 1], "singular")[2],
          golden=True)
    g.add(op, "batch_mismatch", lambda c: run(c, "float", [2, 3, 3], [1, 3, 1])[2])
    g.add(op, "rows_mismatch", lambda c: run(c, "float", [3, 3], [2, 1])[2])
    g.add(op, "not_square", lambda c: run(c, "float", [3, 2], [3, 1])[2])
    g.add(op, "empty_rhs", lambda c: run(c, "float", [3, 3], [3, 0])[2])
    g.add(op, "empty_matrix", lambda c: run(c, "float", [0, 0], [0, 2])[2])
    g.add(op, "grad_float",
          lambda c: (lambda a, b, x: grads(c, [x], [a, b]))(
              *run(c, "float", [2, 3, 3], [2, 3, 2], static=True)))


def triangular_solve(g):
    op = "MatrixTriangularSolve"
    f = raw.MatrixTriangularSolve

    def run(c, t, ms, rs, lower=True, adjoint=False, static=False):
        a = _mat(c, t, ms, "general", name="matrix", static=static)
        b = _mat(c, t, rs, "none", name="rhs", static=static)
        return a, b, f(matrix=a, rhs=b, lower=lower, adjoint=adjoint)

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: run(c, t, [2, 3, 3], [2, 3, 2])[2],
              golden=(t == "float"))
    for lower in (True, False):
        for adjoint in (False, True):
            g.add(op, "lower%d_adjoint%d" % (lower, adjoint),
                  lambda c, lo=lower, ad=adjoint: run(c, "complex64", [2, 3, 3], [2, 3, 2],
                                                      lo, ad)[2],
                  golden=(not lower and adjoint))
    g.add(op, "broadcast_batch", lambda c: run(c, "float", [2, 1, 3, 3], [4, 3, 2])[2])
    g.add(op, "zero_diagonal",
          lambda c: f(matrix=c.feed(np.zeros([2, 2], np.float32), name="matrix"),
                      rhs=c.feed(np.ones([2, 1], np.float32), name="rhs")),
          note="division by a zero pivot: inf/NaN, not an error")
    g.add(op, "rows_mismatch", lambda c: run(c, "float", [3, 3], [2, 1])[2])
    g.add(op, "batch_mismatch", lambda c: run(c, "float", [2, 3, 3], [3, 3, 1])[2])
    g.add(op, "not_square", lambda c: run(c, "float", [3, 2], [3, 1])[2])
    g.add(op, "empty", lambda c: run(c, "float", [0, 3, 3], [0, 3, 2])[2])
    # The gradient needs MatrixBandPart.


def qr(g):
    op = "Qr"
    f = raw.Qr

    def run(c, t, shape, full=False, static=False):
        x = _mat(c, t, shape, "none", static=static)
        return x, list(f(input=x, full_matrices=full))

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: run(c, t, [2, 4, 3])[1],
              golden=(t == "float"))
    for full in (False, True):
        for name, shape in (("tall", [2, 5, 3]), ("wide", [3, 4]), ("square", [4, 4])):
            g.add(op, "%s_full%d" % (name, full),
                  lambda c, s=shape, fm=full: run(c, "double", s, fm)[1],
                  golden=(name == "wide" and full))
    g.add(op, "complex", lambda c: run(c, "complex128", [3, 4, 2], True)[1])
    g.add(op, "larger", lambda c: run(c, "double", [20, 18])[1])
    g.add(op, "empty_rows", lambda c: run(c, "float", [0, 3], True)[1])
    g.add(op, "empty_cols", lambda c: run(c, "float", [3, 0], True)[1])
    g.add(op, "rank1", lambda c: f(input=c.feed(np.ones([3], np.float32), name="input")))
    # The gradient needs MatrixBandPart.


def svd(g):
    op = "Svd"
    f = raw.Svd

    def run(c, t, shape, uv=True, full=False, static=False):
        x = _mat(c, t, shape, "none", static=static)
        s, u, v = f(input=x, compute_uv=uv, full_matrices=full)
        return x, ([s, u, v] if uv else [s])

    for t in g.types(op):
        g.add(op, "dtype_" + t, lambda c, t=t: run(c, t, [2, 4, 3])[1],
              golden=(t == "float"))
    for full in (False, True):
        for name, shape in (("tall", [2, 5, 3]), ("wide", [3, 4]), ("square", [4, 4])):
            g.add(op, "%s_full%d" % (name, full),
                  lambda c, s=shape, fm=full: run(c, "double", s, True, fm)[1],
                  golden=(name == "tall" and full))
    g.add(op, "values_only", lambda c: run(c, "float", [2, 3, 5], False)[1],
          note="compute_uv=false: u and v are placeholders, not fetched")
    g.add(op, "complex", lambda c: run(c, "complex64", [2, 3, 2])[1])
    g.add(op, "larger", lambda c: run(c, "double", [24, 20], False)[1])
    g.add(op, "rank_deficient",
          lambda c: f(input=c.feed(np.ones([3, 4]), name="input"), compute_uv=False)[0])
    g.add(op, "empty", lambda c: run(c, "float", [2, 0, 3], True, True)[1])
    g.add(op, "rank1", lambda c: f(input=c.feed(np.ones([3], np.float32), name="input"))[0])
    # The gradient needs MatrixDiagV3.


def linalg(g):
    for op in SQUARE:
        square_op(g, op)
    matrix_solve(g)
    triangular_solve(g)
    qr(g)
    svd(g)


def generate(g):
    """Every family in this module."""
    einsum(g)
    linalg(g)
