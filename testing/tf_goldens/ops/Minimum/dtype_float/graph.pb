
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
!
MinimumMinimumxy*
T0"ª