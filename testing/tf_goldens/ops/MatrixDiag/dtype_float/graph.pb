
,
dPlaceholder*
dtype0*
shape:
$

MatrixDiag
MatrixDiagd*
T0"ª