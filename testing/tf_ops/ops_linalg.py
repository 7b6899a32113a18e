"""Op cases for Einsum and the batched linear-algebra ops.

Each function adds one family's cases to a Generator (op_case_lib).
"""

# op_case_lib first: it sets TensorFlow's environment before TensorFlow
# loads.
from op_case_lib import DTYPES, grads, raw
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


def generate(g):
    """Every family in this module."""
    einsum(g)
