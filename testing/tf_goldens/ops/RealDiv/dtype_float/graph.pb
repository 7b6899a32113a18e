
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
!
RealDivRealDivxy*
T0"ª