
,
xPlaceholder*
dtype0*
shape:
/
padsPlaceholder*
dtype0*
shape:
Q
SpaceToBatchSpaceToBatchxpads*
	Tpaddings0*
T0*

block_size"ª