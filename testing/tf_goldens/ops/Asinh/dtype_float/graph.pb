
,
xPlaceholder*
dtype0*
shape:

AsinhAsinhx*
T0"ª