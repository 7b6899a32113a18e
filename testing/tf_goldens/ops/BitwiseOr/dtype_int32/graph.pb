
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
%
	BitwiseOr	BitwiseOrxy*
T0"ª