
,
xPlaceholder*
dtype0*
shape:

FloorFloorx*
T0"ª