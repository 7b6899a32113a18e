
,
xPlaceholder*
dtype0*
shape:

SquareSquarex*
T0"ª