
,
xPlaceholder*
dtype0
*
shape:
,
yPlaceholder*
dtype0
*
shape:


LogicalAnd
LogicalAndxy"ª