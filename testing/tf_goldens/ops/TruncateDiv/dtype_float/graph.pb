
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
)
TruncateDivTruncateDivxy*
T0"ª