
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
!
Xlog1pyXlog1pyxy*
T0"ª