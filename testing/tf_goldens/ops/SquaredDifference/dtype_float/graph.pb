
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
5
SquaredDifferenceSquaredDifferencexy*
T0"ª