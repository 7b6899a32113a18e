
,
xPlaceholder*
dtype0*
shape:

AbsAbsx*
T0"ª