
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
4
MatrixSetDiagV2MatrixSetDiagV2xdk*
T0"ª