
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
%
	LeftShift	LeftShiftxy*
T0"ª