
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

PowPowxy*
T0"ª