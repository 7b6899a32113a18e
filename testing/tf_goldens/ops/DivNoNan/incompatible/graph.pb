
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
#
DivNoNanDivNoNanxy*
T0"ª