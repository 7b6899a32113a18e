
0
inputPlaceholder*
dtype0*
shape:
6
MatrixDeterminantMatrixDeterminantinput*
T0"ª