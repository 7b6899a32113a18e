
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
!
MaximumMaximumxy*
T0"ª