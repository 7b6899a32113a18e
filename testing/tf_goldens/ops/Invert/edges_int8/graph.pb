
,
xPlaceholder*
dtype0*
shape:

InvertInvertx*
T0"ª