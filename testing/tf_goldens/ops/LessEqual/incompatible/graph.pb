
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
%
	LessEqual	LessEqualxy*
T0"ª