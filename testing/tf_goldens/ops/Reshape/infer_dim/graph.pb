
,
xPlaceholder*
dtype0*
shape:
0
shapePlaceholder*
dtype0*
shape:
3
ReshapeReshapexshape*
Tshape0*
T0"ª