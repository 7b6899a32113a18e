
,
aPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
!
IgammacIgammacax*
T0"ª