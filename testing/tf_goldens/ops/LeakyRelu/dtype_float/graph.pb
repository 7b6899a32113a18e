
,
xPlaceholder*
dtype0*
shape:
2
	LeakyRelu	LeakyRelux*
T0*
alpha%ÍÌL>"ª