
,
xPlaceholder*
dtype0*
shape:
.
dimPlaceholder*
dtype0*
shape:
5

ExpandDims
ExpandDimsxdim*

Tdim0*
T0"ª