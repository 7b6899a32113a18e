
,
xPlaceholder*
dtype0*
shape:
"
	ZerosLike	ZerosLikex*
T0"ª