
,
xPlaceholder*
dtype0*
shape:

SeluSelux*
T0"ª