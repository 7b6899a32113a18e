
,
xPlaceholder*
dtype0*
shape:

ExpExpx*
T0"ª