
,
xPlaceholder*
dtype0*
shape:

DigammaDigammax*
T0"ª