
,
xPlaceholder*
dtype0*
shape:

Expm1Expm1x*
T0"ª