
,
xPlaceholder*
dtype0*
shape:
*
BitcastBitcastx*
T0*

type0"ª