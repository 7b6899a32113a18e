
,
xPlaceholder*
dtype0*
shape:

NegNegx*
T0"ª