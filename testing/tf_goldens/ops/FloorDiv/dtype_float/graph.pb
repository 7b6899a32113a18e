
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
#
FloorDivFloorDivxy*
T0"ª