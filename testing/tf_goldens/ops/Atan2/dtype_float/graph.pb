
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

Atan2Atan2yx*
T0"ª