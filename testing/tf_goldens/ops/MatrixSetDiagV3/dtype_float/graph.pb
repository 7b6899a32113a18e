
,
xPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
K
MatrixSetDiagV3MatrixSetDiagV3xdk*
T0*
align
RIGHT_LEFT"ª