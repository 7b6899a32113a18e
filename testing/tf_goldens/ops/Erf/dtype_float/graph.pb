
,
xPlaceholder*
dtype0*
shape:

ErfErfx*
T0"ª