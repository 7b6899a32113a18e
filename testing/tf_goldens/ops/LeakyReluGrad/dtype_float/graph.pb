
4
	gradientsPlaceholder*
dtype0*
shape:
3
featuresPlaceholder*
dtype0*
shape:
L
LeakyReluGradLeakyReluGrad	gradientsfeatures*
T0*
alpha%ÍÌL>"ª