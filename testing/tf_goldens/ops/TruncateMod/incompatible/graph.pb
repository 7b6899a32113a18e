
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
)
TruncateModTruncateModxy*
T0"ª