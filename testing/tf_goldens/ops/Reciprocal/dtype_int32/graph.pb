
,
xPlaceholder*
dtype0*
shape:
$

Reciprocal
Reciprocalx*
T0"ª