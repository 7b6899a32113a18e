
,
xPlaceholder*
dtype0*
shape:
-
loPlaceholder*
dtype0	*
shape:
-
upPlaceholder*
dtype0	*
shape:
B
MatrixBandPartMatrixBandPartxloup*
Tindex0	*
T0"ª