
,
xPlaceholder*
dtype0*
shape:

IsInfIsInfx*
T0"ª