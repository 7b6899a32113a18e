
,
xPlaceholder*
dtype0*
shape:

RoundRoundx*
T0"ª