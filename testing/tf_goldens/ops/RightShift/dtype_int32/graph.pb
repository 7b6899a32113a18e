
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
'

RightShift
RightShiftxy*
T0"ª