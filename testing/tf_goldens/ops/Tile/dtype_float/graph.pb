
,
xPlaceholder*
dtype0*
shape:
4
	multiplesPlaceholder*
dtype0*
shape:
5
TileTilex	multiples*

Tmultiples0*
T0"ª