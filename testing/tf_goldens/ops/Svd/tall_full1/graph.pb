
0
inputPlaceholder*
dtype0*
shape:
A
SvdSvdinput*
T0*

compute_uv(*
full_matrices("ª