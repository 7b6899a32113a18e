
,
xPlaceholder*
dtype0*
shape:
0
shapePlaceholder*
dtype0*
shape:
9
BroadcastToBroadcastToxshape*

Tidx0*
T0"ª