
,
xPlaceholder*
dtype0*
shape:
2
blockPlaceholder*
dtype0*
shape:
/
padsPlaceholder*
dtype0*
shape:
^
SpaceToBatchNDSpaceToBatchNDxblockpads*
Tblock_shape0*
	Tpaddings0*
T0"ª