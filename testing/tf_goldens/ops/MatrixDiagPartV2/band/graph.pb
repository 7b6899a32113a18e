
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
8
MatrixDiagPartV2MatrixDiagPartV2xkpad*
T0"ª