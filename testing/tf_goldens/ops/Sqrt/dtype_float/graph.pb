
,
xPlaceholder*
dtype0*
shape:

SqrtSqrtx*
T0"ª