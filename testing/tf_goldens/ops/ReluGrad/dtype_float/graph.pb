
4
	gradientsPlaceholder*
dtype0*
shape:
3
featuresPlaceholder*
dtype0*
shape:
2
ReluGradReluGrad	gradientsfeatures*
T0"ª