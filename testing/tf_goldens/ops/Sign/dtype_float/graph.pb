
,
xPlaceholder*
dtype0*
shape:

SignSignx*
T0"ª