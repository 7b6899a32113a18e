
,
xPlaceholder*
dtype0*
shape:

CeilCeilx*
T0"ª