
,
xPlaceholder*
dtype0*
shape:

ErfcErfcx*
T0"ª