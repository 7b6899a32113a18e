
,
xPlaceholder*
dtype0*
shape:
,
MatrixDiagPartMatrixDiagPartx*
T0"ª