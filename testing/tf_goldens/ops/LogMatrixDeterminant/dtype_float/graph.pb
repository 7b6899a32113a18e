
0
inputPlaceholder*
dtype0*
shape:
<
LogMatrixDeterminantLogMatrixDeterminantinput*
T0"ª