
,
xPlaceholder*
dtype0*
shape:

IsNanIsNanx*
T0"ª