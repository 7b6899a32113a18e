
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

MulMulxy*
T0"ª