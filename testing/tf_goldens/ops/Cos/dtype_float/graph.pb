
,
xPlaceholder*
dtype0*
shape:

CosCosx*
T0"ª