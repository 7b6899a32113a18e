
,
dPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
/
rowsPlaceholder*
dtype0*
shape:
/
colsPlaceholder*
dtype0*
shape:
.
padPlaceholder*
dtype0*
shape:
S
MatrixDiagV3MatrixDiagV3dkrowscolspad*
T0*
align
RIGHT_LEFT"ª