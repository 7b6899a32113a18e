
,
xPlaceholder*
dtype0*
shape:

SinhSinhx*
T0"ª