
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
'

BitwiseXor
BitwiseXorxy*
T0"ª