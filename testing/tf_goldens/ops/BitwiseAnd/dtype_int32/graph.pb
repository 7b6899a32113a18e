
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
'

BitwiseAnd
BitwiseAndxy*
T0"ª