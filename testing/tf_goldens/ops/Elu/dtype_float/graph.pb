
,
xPlaceholder*
dtype0*
shape:

EluElux*
T0"ª