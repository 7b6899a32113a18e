
,
xPlaceholder*
dtype0*
shape:

AsinAsinx*
T0"ª