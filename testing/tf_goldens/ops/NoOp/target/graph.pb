

nopNoOp"ª