
,
xPlaceholder*
dtype0*
shape:

SinSinx*
T0"ª