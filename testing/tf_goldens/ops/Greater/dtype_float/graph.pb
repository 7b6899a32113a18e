
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
!
GreaterGreaterxy*
T0"ª