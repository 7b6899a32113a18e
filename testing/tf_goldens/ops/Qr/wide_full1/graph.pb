
0
inputPlaceholder*
dtype0*
shape:
-
QrQrinput*
T0*
full_matrices("ª