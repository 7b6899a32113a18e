
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

	LogicalOr	LogicalOrxy"ª