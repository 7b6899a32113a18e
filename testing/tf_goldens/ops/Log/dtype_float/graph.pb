
,
xPlaceholder*
dtype0*
shape:

LogLogx*
T0"ª