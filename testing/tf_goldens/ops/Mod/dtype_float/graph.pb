
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

ModModxy*
T0"ª