
,
xPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
.
padPlaceholder*
dtype0*
shape:
O
MatrixDiagPartV3MatrixDiagPartV3xkpad*
T0*
align
RIGHT_LEFT"ª